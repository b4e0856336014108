import type { Conversation, SessionState } from '../api/types.js';
import { describePausedReason } from '../lib/format.js';
import { Badge, type Tone } from './ui.js';

export const STATE_TONE: Record<SessionState, Tone> = {
  active: 'success',
  paused: 'warning',
  closed: 'neutral',
};

/** The server names the customer (one rule, in its read model); the fallback only covers an older server. */
export function customerLabel(conversation: Conversation): string {
  return conversation.customer.displayName?.trim() || conversation.customer.name?.trim() || `Client ${String(conversation.customer.clientId)}`;
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
