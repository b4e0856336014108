import type { Conversation } from '../api/types.js';
import { formatDateTimeLong, formatRelative } from '../lib/format.js';
import { formatWaiting, HANDOFF_REASON } from '../lib/inbox.js';
import { Link } from '../lib/router.js';
import { channelLabel, customerLabel, SessionStateBadge } from './conversation.js';
import { HandoffSummaryLine } from './HandoffSummary.js';
import { Badge } from './ui.js';
import { PriorityBadge, SlaTimer } from './Triage.js';
import './inbox.css';

const PREVIEW_AUTHOR: Record<NonNullable<Conversation['lastMessage']>['author'], string> = {
  customer: '',
  agent: 'AI: ',
  operator: 'Team: ',
};

export const messagesLabel = (n: number) => `${n} message${n === 1 ? '' : 's'}`;

/**
 * One inbox row. The name, channel, preview and time each keep a line of their own (cut with an ellipsis, never
 * squeezed by badges); the status is one chip (waiting for a human, else the AI session's state), and the chips
 * below wrap instead of running past the card.
 */
export function ConversationRow({
  conversation,
  channel,
  stageName,
  teamName,
  assigneeName,
  current,
  selected,
  onSelect,
}: {
  conversation: Conversation;
  channel: string;
  stageName: string | undefined;
  /** The support team's name (undefined: no team, or the teams are loading). */
  teamName?: string | undefined;
  /** "You", the teammate's name, or undefined while the team loads; not called when unassigned. */
  assigneeName: string | undefined;
  current: boolean;
  selected: boolean;
  onSelect: (selected: boolean) => void;
}) {
  const name = customerLabel(conversation);
  const when = conversation.lastMessageAt ?? conversation.createdAt;
  const { handoff, lastMessage } = conversation;
  const unread = conversation.unread ?? 0;
  return (
    <li className={`conversation-item${selected ? ' is-selected' : ''}`}>
      <input type="checkbox" className="row-check" checked={selected} onChange={(event) => onSelect(event.target.checked)} aria-label={`Select the conversation with ${name}`} data-testid="row-select" />
      <Link
        to={`/conversations/${encodeURIComponent(conversation.id)}`}
        className="conversation-row"
        data-testid={`conversation-row-${conversation.id}`}
        aria-current={current ? 'page' : undefined}
      >
        <span className="row-head">
          <span className="row-title" data-testid="row-customer">
            {name}
          </span>
          <time dateTime={when} title={formatDateTimeLong(when)} className="row-time">
            {formatRelative(when)}
          </time>
        </span>
        <span className="row-sub" data-testid="row-channel">
          {channel}
          {` · ${channelLabel(conversation)}`}
        </span>
        <span className={`row-preview${unread > 0 ? ' is-unread' : ''}`} data-testid="row-preview">
          {lastMessage ? `${PREVIEW_AUTHOR[lastMessage.author] ?? ''}${lastMessage.text || '(attachment)'}` : 'No messages yet'}
        </span>
        {handoff && conversation.handoffSummary && <HandoffSummaryLine summary={conversation.handoffSummary} />}
        <span className="row-badges">
          <PriorityBadge priority={conversation.priority} />
          <SlaTimer sla={conversation.sla} compact />
          {conversation.snoozedUntil && (
            <Badge tone="info" data-testid="row-snoozed" title={`Snoozed until ${formatDateTimeLong(conversation.snoozedUntil)}`}>
              Snoozed
            </Badge>
          )}
          {handoff ? (
            <Badge tone="danger" data-testid="needs-human" title={`${HANDOFF_REASON[handoff.reason] ?? 'Handed off'}${handoff.detail ? `: ${handoff.detail}` : ''}`}>
              Waiting {formatWaiting(handoff.since)}
            </Badge>
          ) : (
            <SessionStateBadge conversation={conversation} />
          )}
          {conversation.pendingAction?.mode === 'approve' && (
            <Badge tone="warning" data-testid="needs-approval" title={`The agent waits for a teammate to approve ${conversation.pendingAction.actionName}`}>
              Needs approval
            </Badge>
          )}
          {handoff?.backAt && (
            <Badge tone="warning" data-testid="after-hours" title={`Handed off after hours; the team is back ${formatDateTimeLong(handoff.backAt)}`}>
              After hours
            </Badge>
          )}
          {conversation.assigneeId && (
            <Badge tone="neutral" className="row-assignee" data-testid="assignee" title={assigneeName ? `Assigned to ${assigneeName}` : 'Assigned'}>
              {assigneeName ?? '…'}
            </Badge>
          )}
          {teamName && (
            <Badge tone="neutral" data-testid="row-team" title={`Team ${teamName}`}>
              {teamName}
            </Badge>
          )}
          {stageName && <Badge tone="accent">{stageName}</Badge>}
          {unread > 0 && (
            <Badge tone="accent" data-testid="unread" title={`${unread} unread customer message${unread === 1 ? '' : 's'}`}>
              {unread} new
            </Badge>
          )}
          <span className="count" title={messagesLabel(conversation.messageCount)}>
            <span className="visually-hidden">Messages: </span>
            {conversation.messageCount}
          </span>
        </span>
      </Link>
    </li>
  );
}
