import { useState } from 'react';
import { ACTION_CALL_STATUSES, getActionAnalytics, listActionCalls, type ActionCall, type ActionCallStatus } from '../api/actionCalls.js';
import { ActionCallCard } from '../components/ActionCallCard.js';
import { LoadMore } from '../components/LoadMore.js';
import { Button, EmptyState, ListState, PageHeader, SelectField, TextField } from '../components/ui.js';
import { STATUS_LABEL } from '../lib/actionCalls.js';
import { Link } from '../lib/router.js';
import { useTeam } from '../lib/team.js';
import { useAsync } from '../lib/useAsync.js';
import { useDebounced } from '../lib/useDebounced.js';
import { usePaged } from '../lib/usePaged.js';
import { useAuth } from '../auth.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const isoDay = (offsetDays: number) => new Date(Date.now() + offsetDays * 86_400_000).toISOString().slice(0, 10);

/**
 * Action log: every call the company's agents made or asked to make, newest first, filtered by action, status and
 * conversation. Each call is a card: what, when, with what arguments, the result and who approved or refused.
 */
export function ActionLogPage() {
  const me = useAuth().me?.user.id;
  const team = useTeam();
  const [actionId, setActionId] = useState('');
  const [status, setStatus] = useState<ActionCallStatus | ''>('');
  const [conversationInput, setConversationInput] = useState('');
  const conversation = useDebounced(conversationInput.trim(), 300);
  const conversationId = UUID.test(conversation) ? conversation : '';
  const conversationInvalid = conversation !== '' && !conversationId;
  // The actions to filter by: those called in the last year (the log keeps calls of actions deleted since).
  const actions = useAsync((signal) => getActionAnalytics({ from: isoDay(-365), to: isoDay(0) }, { signal }), []);
  const calls = usePaged((cursor, signal) => listActionCalls({ actionId, status, conversationId }, cursor, { signal }), [actionId, status, conversationId]);
  const nameOf = (userId: string) => (userId === me ? 'you' : (team.nameOf(userId) ?? 'a former teammate'));
  const filtered = Boolean(actionId || status || conversationId);

  return (
    <>
      <PageHeader
        title="Action log"
        description="Every call your agents made to your systems, or asked to make: the arguments, what came back, and who approved or refused it. The builtin provider does not call actions."
        actions={
          <Button onClick={calls.reload} busy={calls.loading && Boolean(calls.items)}>
            Refresh
          </Button>
        }
      />
      <section className="card action-log-filters" aria-label="Filters">
        <SelectField label="Action" value={actionId} onValueChange={setActionId} data-testid="action-log-action">
          <option value="">All actions</option>
          {actions.data?.byAction.map((a) => (
            <option key={a.actionId} value={a.actionId}>
              {a.actionName}
            </option>
          ))}
        </SelectField>
        <SelectField label="Status" value={status} onValueChange={(v) => setStatus(v as ActionCallStatus | '')} data-testid="action-log-status">
          <option value="">Any status</option>
          {ACTION_CALL_STATUSES.map((s) => (
            <option key={s} value={s}>
              {STATUS_LABEL[s]}
            </option>
          ))}
        </SelectField>
        <TextField
          className="action-log-conversation"
          label="Conversation"
          placeholder="Conversation id"
          value={conversationInput}
          onValueChange={setConversationInput}
          error={conversationInvalid ? 'Paste a conversation id (from its address).' : undefined}
          data-testid="action-log-conversation"
        />
      </section>
      <ListState
        list={calls}
        items={calls.items}
        loadingLabel="Loading the action log…"
        skeletonRows={4}
        errorTitle="Could not load the action log"
        empty={
          <EmptyState title={filtered ? 'No call matches these filters' : 'No action calls yet'}>
            {filtered ? 'Try another action, status or conversation.' : 'When an agent uses one of your actions, each call shows up here.'}
          </EmptyState>
        }
      >
        <ol className="action-log-list" aria-label="Action calls" data-testid="action-log">
          {calls.items?.map((call: ActionCall) => (
            <li key={call.callId}>
              <ActionCallCard call={call} nameOf={nameOf}>
                <p className="small muted">
                  {call.conversationId ? (
                    <Link to={`/conversations/${call.conversationId}`}>Open the conversation</Link>
                  ) : (
                    <span data-testid="action-log-playground">Live call from the playground: no customer conversation</span>
                  )}
                </p>
              </ActionCallCard>
            </li>
          ))}
        </ol>
        <LoadMore list={calls} />
      </ListState>
    </>
  );
}
