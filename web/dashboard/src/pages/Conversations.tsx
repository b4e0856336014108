import { useCallback, useMemo, useRef, useState } from 'react';
import { ApiError } from '../api/client.js';
import { getConversation, getPipeline, listConversations, listIntegrations, type ConversationFilters } from '../api/endpoints.js';
import type { Conversation, SessionState } from '../api/types.js';
import { byLastActivity, customerLabel, matchesFilters, SessionStateBadge } from '../components/conversation.js';
import { LiveIndicator } from '../components/LiveIndicator.js';
import { Badge, Button, EmptyState, ErrorState, InlineError, PageHeader, SelectField, Skeleton } from '../components/ui.js';
import { formatDateTimeLong, formatRelative } from '../lib/format.js';
import { Link, navigate } from '../lib/router.js';
import { useAsync } from '../lib/useAsync.js';
import { usePaged } from '../lib/usePaged.js';
import { useStreamEvents } from '../lib/useStream.js';
import { ConversationDetailView } from './ConversationDetail.js';

export function ConversationsPage({ id }: { id: string | null }) {
  const [state, setState] = useState<'' | SessionState>('');
  const [integrationId, setIntegrationId] = useState<number | ''>('');
  const [stageId, setStageId] = useState('');
  const filters: ConversationFilters = useMemo(() => ({ state, integrationId, stageId }), [state, integrationId, stageId]);

  const integrations = useAsync((signal) => listIntegrations({ signal }), []);
  const pipeline = useAsync((signal) => getPipeline({ signal }), []);
  const stages = useMemo(() => [...(pipeline.data?.stages ?? [])].sort((a, b) => a.position - b.position), [pipeline.data]);
  const stageNames = useMemo(() => new Map(stages.map((s) => [s.id, s.name])), [stages]);
  const integrationNames = useMemo(() => new Map((integrations.data ?? []).map((i) => [i.id, i.name])), [integrations.data]);

  const list = usePaged<Conversation>((cursor, signal) => listConversations(filters, cursor, 50, { signal }), [filters]);
  const { setItems, reload } = list;

  /** Puts a changed conversation where it belongs in the loaded list (or takes it out). */
  const upsert = useCallback(
    (conversation: Conversation) => {
      setItems((items) => {
        if (!items) return items;
        const rest = items.filter((item) => item.id !== conversation.id);
        if (!matchesFilters(conversation, filters)) return rest;
        return [...rest, conversation].sort(byLastActivity);
      });
    },
    [setItems, filters],
  );
  const remove = useCallback((conversationId: string) => setItems((items) => items?.filter((item) => item.id !== conversationId)), [setItems]);

  // Live updates: coalesce bursts of events, then refetch the conversations that changed.
  const pending = useRef(new Set<string>());
  const flushTimer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  useStreamEvents((event) => {
    if (event.type === 'resync') {
      reload();
      return;
    }
    pending.current.add(event.conversationId);
    if (flushTimer.current) return;
    flushTimer.current = setTimeout(() => {
      flushTimer.current = undefined;
      const ids = [...pending.current];
      pending.current.clear();
      for (const conversationId of ids) {
        getConversation(conversationId).then(
          (detail) => upsert(detail.conversation),
          (error: unknown) => {
            if (error instanceof ApiError && error.status === 404) remove(conversationId);
          },
        );
      }
    }, 250);
  });

  const hasFilters = Boolean(state || integrationId !== '' || stageId);

  return (
    <div className={`conversations-page${id ? ' has-detail' : ''}`}>
      <div className="list-pane">
        <PageHeader title="Conversations" actions={<LiveIndicator />} />
        <div className="filters" role="group" aria-label="Filter conversations">
          <SelectField label="State" value={state} onValueChange={(v) => setState(v as '' | SessionState)}>
            <option value="">All states</option>
            <option value="active">Active</option>
            <option value="paused">Paused</option>
            <option value="closed">Closed</option>
          </SelectField>
          <SelectField label="Integration" value={String(integrationId)} onValueChange={(v) => setIntegrationId(v ? Number(v) : '')}>
            {/* "All integrations" is cut in the narrow filter column; the label above already says Integration. */}
            <option value="">All</option>
            {integrations.data?.map((integration) => (
              <option key={integration.id} value={integration.id}>
                {integration.name}
              </option>
            ))}
          </SelectField>
          <SelectField label="Stage" value={stageId} onValueChange={setStageId}>
            <option value="">All stages</option>
            {stages.map((stage) => (
              <option key={stage.id} value={stage.id}>
                {stage.name}
              </option>
            ))}
          </SelectField>
        </div>

        {list.loading && !list.items ? (
          <Skeleton rows={6} label="Loading conversations…" />
        ) : list.error && !list.items ? (
          <ErrorState error={list.error} onRetry={list.reload} title="Could not load the conversations" />
        ) : list.items && list.items.length === 0 ? (
          hasFilters ? (
            <EmptyState
              title="No conversations match these filters"
              action={
                <Button
                  onClick={() => {
                    setState('');
                    setIntegrationId('');
                    setStageId('');
                  }}
                >
                  Clear filters
                </Button>
              }
            />
          ) : (
            <EmptyState title="No conversations yet">
              Conversations appear here as soon as a customer writes to one of your channels.{' '}
              {integrations.data && integrations.data.length === 0 ? (
                <>
                  Start by <Link to="/integrations/new">creating an integration</Link>.
                </>
              ) : (
                <>
                  Check that your <Link to="/integrations">integration</Link> is active and its webhook is registered.
                </>
              )}
            </EmptyState>
          )
        ) : (
          <>
            <ul className="conversation-list" aria-label="Conversations" aria-busy={list.loading}>
              {list.items?.map((conversation) => (
                <li key={conversation.id}>
                  <Link
                    to={`/conversations/${encodeURIComponent(conversation.id)}`}
                    className="conversation-row"
                    data-testid={`conversation-row-${conversation.id}`}
                    aria-current={conversation.id === id ? 'page' : undefined}
                  >
                    <span className="row-main">
                      <span className="row-title">{customerLabel(conversation)}</span>
                      <span className="row-sub">
                        {integrationNames.get(conversation.integrationId) ?? `Integration #${conversation.integrationId}`}
                        {conversation.customer.transport ? ` · ${conversation.customer.transport}` : ''}
                      </span>
                    </span>
                    <span className="row-side">
                      <time dateTime={conversation.lastMessageAt ?? conversation.createdAt} title={formatDateTimeLong(conversation.lastMessageAt ?? conversation.createdAt)} className="row-time">
                        {formatRelative(conversation.lastMessageAt ?? conversation.createdAt)}
                      </time>
                      <span className="row-badges">
                        <SessionStateBadge conversation={conversation} />
                        {conversation.stageId && stageNames.get(conversation.stageId) && <Badge tone="accent">{stageNames.get(conversation.stageId)}</Badge>}
                        <span className="count" title={`${conversation.messageCount} messages`}>
                          <span className="visually-hidden">Messages: </span>
                          {conversation.messageCount}
                        </span>
                      </span>
                    </span>
                  </Link>
                </li>
              ))}
            </ul>
            {list.nextCursor && (
              <div className="list-foot">
                <Button onClick={list.loadMore} busy={list.loadingMore}>
                  Load more
                </Button>
              </div>
            )}
            <InlineError error={list.loadMoreError} />
          </>
        )}
      </div>

      <div className="detail-pane">
        {id ? (
          <ConversationDetailView
            key={id}
            id={id}
            stages={stages}
            integrationName={(integrationId) => integrationNames.get(integrationId)}
            onChange={upsert}
            onBack={() => navigate('/conversations')}
          />
        ) : (
          <div className="detail-placeholder">
            <EmptyState title="Select a conversation">Pick a conversation on the left to read it, reply, or pause the AI.</EmptyState>
          </div>
        )}
      </div>
    </div>
  );
}
