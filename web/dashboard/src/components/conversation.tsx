import type { Conversation, SessionState } from '../api/types.js';
import { describePausedReason } from '../lib/format.js';
import { useId, useState } from 'react';
import { Badge, CopyButton, type Tone } from './ui.js';

export const STATE_TONE: Record<SessionState, Tone> = {
  active: 'success',
  paused: 'warning',
  closed: 'neutral',
};

/** The server names the customer (one rule, in its read model); the fallback only covers an older server. */
export function customerLabel(conversation: Conversation): string {
  return conversation.customer.displayName?.trim() || conversation.customer.name?.trim() || 'Customer';
}

/** Where the customer writes from, in words: the web chat, a test message, or the platform's transport. */
export function channelLabel(conversation: Pick<Conversation, 'connectorType' | 'customer'>): string {
  if (conversation.connectorType === 'webchat') return 'Web chat';
  const transport = conversation.customer.transport?.trim();
  if (!transport) return 'Messaging platform';
  if (transport === 'test') return 'Test message';
  return transport.charAt(0).toUpperCase() + transport.slice(1);
}

/**
 * The platform's raw ids, only on demand: they mean nothing to a teammate reading the conversation, but support
 * (or the platform's own console) sometimes needs them, so one click shows them with a copy button.
 */
export function CustomerIds({ clientId, channelId }: { clientId: string | number; channelId?: string | number | null }) {
  const [shown, setShown] = useState(false);
  const id = useId();
  return (
    <span className="customer-ids">
      <button type="button" className="btn btn-link btn-sm" aria-expanded={shown} aria-controls={id} onClick={() => setShown((s) => !s)} data-testid="show-customer-id">
        {shown ? 'Hide id' : 'Show id'}
      </button>
      {shown && (
        <span id={id} data-testid="customer-raw-id">
          {' '}
          client <code id={`${id}-client`}>{String(clientId)}</code> <CopyButton text={String(clientId)} describedBy={`${id}-client`} what="Client id" />
          {channelId !== undefined && channelId !== null ? ` · channel ${String(channelId)}` : ''}
        </span>
      )}
    </span>
  );
}

/** The AI session state: text is the raw state (active / paused / closed), capitalised by CSS. */
export function SessionStateBadge({ conversation, testId }: { conversation: Conversation; testId?: string }) {
  if (!conversation.session) {
    return (
      <Badge tone="neutral" className="badge-state" data-testid={testId} data-state="none" title="No AI session yet: the next customer message starts one">
        no session
      </Badge>
    );
  }
  const { state, pausedReason } = conversation.session;
  return (
    <Badge
      tone={STATE_TONE[state] ?? 'neutral'}
      className="badge-state"
      data-testid={testId}
      data-state={state}
      title={state === 'paused' ? describePausedReason(pausedReason) : `AI session ${state}`}
    >
      {state}
    </Badge>
  );
}

/** Does a conversation match the list filters? (Used to place live updates.) */
export function matchesFilters(conversation: Conversation, filters: { state?: string; integrationId?: number | ''; stageId?: string }): boolean {
  if (filters.state && conversation.session?.state !== filters.state) return false;
  if (filters.integrationId !== undefined && filters.integrationId !== '' && conversation.integrationId !== filters.integrationId) return false;
  if (filters.stageId && conversation.stageId !== filters.stageId) return false;
  return true;
}

export function byLastActivity(a: Conversation, b: Conversation): number {
  const ta = Date.parse(a.lastMessageAt ?? a.createdAt) || 0;
  const tb = Date.parse(b.lastMessageAt ?? b.createdAt) || 0;
  return tb - ta;
}
