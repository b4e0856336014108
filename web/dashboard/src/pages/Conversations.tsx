import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { ApiError } from '../api/client.js';
import { getConversation, getPipeline, listConversations, listIntegrations, type ConversationFilters } from '../api/endpoints.js';
import { listSupportTeams } from '../api/supportTeams.js';
import type { Conversation, InboxView, SessionState } from '../api/types.js';
import { useAuth } from '../auth.js';
import { byLastActivity, matchesFilters } from '../components/conversation.js';
import { ConversationRow } from '../components/ConversationRow.js';
import { BulkBar, ShortcutHelp } from '../components/InboxTools.js';
import { LiveIndicator } from '../components/LiveIndicator.js';
import { LoadMore } from '../components/LoadMore.js';
import { Button, EmptyState, ErrorState, PageHeader, SelectField, Skeleton } from '../components/ui.js';
import { useInboxCounts } from '../lib/inbox.js';
import { useShortcuts } from '../lib/shortcuts.js';
import { useTeam } from '../lib/team.js';
import { Link, navigate } from '../lib/router.js';
import { useAsync } from '../lib/useAsync.js';
import { usePaged } from '../lib/usePaged.js';
import { useStreamEvents } from '../lib/useStream.js';
import { ConversationDetailView } from './ConversationDetail.js';
import { OnboardingChecklist } from '../components/OnboardingChecklist.js';

const VIEWS: { view: '' | InboxView; label: string }[] = [
  { view: '', label: 'All' },
  { view: 'mine', label: 'Mine' },
  { view: 'unassigned', label: 'Unassigned' },
  { view: 'needs_human', label: 'Needs human' },
  { view: 'snoozed', label: 'Snoozed' },
];

/** Does a conversation belong in an inbox view? (Used to place live updates; the server's filter is the same.) */
function inView(conversation: Conversation, view: '' | InboxView, me: string | undefined): boolean {
  // A snoozed conversation is in the Snoozed view only, until it wakes.
  const snoozed = Boolean(conversation.snoozedUntil);
  const open = conversation.session?.state !== 'closed' && !snoozed;
  if (view === 'snoozed') return snoozed;
  if (view === 'mine') return open && conversation.assigneeId === me;
  if (view === 'unassigned') return open && !conversation.assigneeId;
  if (view === 'needs_human') return Boolean(conversation.handoff) && !snoozed;
  return true;
}
const byLongestWaiting = (a: Conversation, b: Conversation) => (a.handoff?.since ?? '').localeCompare(b.handoff?.since ?? '') || a.id.localeCompare(b.id);

export function ConversationsPage({ id }: { id: string | null }) {
  const me = useAuth().me?.user.id;
  const [view, setView] = useState<'' | InboxView>('');
  const [state, setState] = useState<'' | SessionState>('');
  const [integrationId, setIntegrationId] = useState<number | ''>('');
  const [stageId, setStageId] = useState('');
  const [teamId, setTeamId] = useState('');
  const filters: ConversationFilters = useMemo(() => ({ view, state, integrationId, stageId, teamId }), [view, state, integrationId, stageId, teamId]);
  const inbox = useInboxCounts();
  const team = useTeam();

  const integrations = useAsync((signal) => listIntegrations({ signal }), []);
  const pipeline = useAsync((signal) => getPipeline({ signal }), []);
  const stages = useMemo(() => [...(pipeline.data?.stages ?? [])].sort((a, b) => a.position - b.position), [pipeline.data]);
  const stageNames = useMemo(() => new Map(stages.map((s) => [s.id, s.name])), [stages]);
  const supportTeams = useAsync((signal) => listSupportTeams({ signal }), []);
  const teamNames = useMemo(() => new Map((supportTeams.data?.teams ?? []).map((t) => [t.id, t.name])), [supportTeams.data]);
  const integrationNames = useMemo(() => new Map((integrations.data ?? []).map((i) => [i.id, i.name])), [integrations.data]);

  const list = usePaged<Conversation>((cursor, signal) => listConversations(filters, cursor, 50, { signal }), [filters]);
  const { setItems, reload } = list;

  /** Puts a changed conversation where it belongs in the loaded list (or takes it out). */
  const upsert = useCallback(
    (conversation: Conversation) => {
      setItems((items) => {
        if (!items) return items;
        const rest = items.filter((item) => item.id !== conversation.id);
        if (!matchesFilters(conversation, filters) || !inView(conversation, filters.view ?? '', me)) return rest;
        const order = filters.view === 'needs_human' ? byLongestWaiting : byLastActivity;
        // A change that does not move it (read, assigned, a stage) keeps the row where it is: rows jumping under
        // the cursor, or under j/k, while nothing new arrived is what a team working the list must never see.
        const at = items.findIndex((item) => item.id === conversation.id);
        if (at !== -1 && order(items[at]!, conversation) === 0) return items.map((item, i) => (i === at ? conversation : item));
        return [...rest, conversation].sort(order);
      });
      inbox.refresh();
    },
    [setItems, filters, me, inbox.refresh],
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

  const hasFilters = Boolean(view || state || integrationId !== '' || stageId || teamId);

  // Bulk selection: ids of loaded rows; a row that leaves the list leaves the selection.
  const [selectedIds, setSelectedIds] = useState<Set<string>>(() => new Set());
  useEffect(() => setSelectedIds(new Set()), [filters]);
  const selected = useMemo(() => (list.items ?? []).filter((c) => selectedIds.has(c.id)), [list.items, selectedIds]);

  const [help, setHelp] = useState(false);
  // The conversation a key last moved to: a second key pressed before the page re-rendered moves on from it.
  const currentId = useRef(id);
  useEffect(() => {
    currentId.current = id;
  }, [id]);
  const step = (by: 1 | -1) => {
    const items = list.items ?? [];
    if (items.length === 0) return;
    const at = items.findIndex((c) => c.id === currentId.current);
    const next = at === -1 ? (by === 1 ? 0 : items.length - 1) : Math.min(items.length - 1, Math.max(0, at + by));
    currentId.current = items[next]!.id;
    navigate(`/conversations/${encodeURIComponent(items[next]!.id)}`);
  };
  useShortcuts({ j: () => step(1), k: () => step(-1), '?': () => setHelp(true) });

  return (
    <div className={`conversations-page${id ? ' has-detail' : ''}`}>
      <div className="list-pane">
        <PageHeader
          title="Conversations"
          actions={
            <>
              {inbox.permission === 'default' && (
                <Button onClick={() => void inbox.enableNotifications()} data-testid="enable-notifications" title="Get a browser notification when a customer starts waiting for a human">
                  Notify me
                </Button>
              )}
              <Button variant="ghost" size="sm" onClick={() => setHelp(true)} aria-label="Keyboard shortcuts" title="Keyboard shortcuts (?)" data-testid="shortcuts-button">
                ?
              </Button>
              <LiveIndicator />
            </>
          }
        />
        <OnboardingChecklist />
        <div className="tabs inbox-tabs" role="tablist" aria-label="Inbox views">
          {VIEWS.map(({ view: v, label }) => {
            const counts = v ? inbox.views?.[v] : undefined;
            return (
              <button
                key={v || 'all'}
                type="button"
                role="tab"
                className="tab"
                aria-selected={view === v}
                data-testid={`view-tab-${v || 'all'}`}
                onClick={() => setView(v)}
              >
                {label}
                {counts && (
                  <span className="tab-count" data-testid={`view-count-${v}`} title={`${counts.count} conversation${counts.count === 1 ? '' : 's'}, ${counts.unread}${counts.unreadCapped ? '+' : ''} with unread messages`}>
                    {counts.count}
                  </span>
                )}
              </button>
            );
          })}
        </div>
        <div className="filters" role="group" aria-label="Filter conversations">
          {teamNames.size > 0 && (
            <SelectField label="Team" value={teamId} onValueChange={setTeamId} data-testid="team-filter">
              <option value="">All teams</option>
              {supportTeams.data?.teams.map((t) => (
                <option key={t.id} value={t.id}>
                  {t.name}
                </option>
              ))}
            </SelectField>
          )}
          {/* A team filter combines with the view only: the others wait until it is cleared. */}
          <SelectField label="State" value={state} onValueChange={(v) => setState(v as '' | SessionState)} disabled={Boolean(teamId)}>
            <option value="">All states</option>
            <option value="active">Active</option>
            <option value="paused">Paused</option>
            <option value="closed">Closed</option>
          </SelectField>
          <SelectField label="Integration" value={String(integrationId)} onValueChange={(v) => setIntegrationId(v ? Number(v) : '')} disabled={Boolean(teamId)}>
            {/* "All integrations" is cut in the narrow filter column; the label above already says Integration. */}
            <option value="">All</option>
            {integrations.data?.map((integration) => (
              <option key={integration.id} value={integration.id}>
                {integration.name}
              </option>
            ))}
          </SelectField>
          <SelectField label="Stage" value={stageId} onValueChange={setStageId} disabled={Boolean(teamId)}>
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
                    setView('');
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
                  Start with the <Link to="/knowledge-base">knowledge base</Link>, then an agent and an integration (see <strong>Get started</strong>).
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
            {selected.length > 0 && (
              <BulkBar selected={selected} loaded={list.items?.length ?? 0} onSelectAll={() => setSelectedIds(new Set(list.items?.map((c) => c.id)))} onClear={() => setSelectedIds(new Set())} onChange={upsert} />
            )}
            <ul className="conversation-list" aria-label="Conversations" aria-busy={list.loading}>
              {list.items?.map((conversation) => (
                <ConversationRow
                  key={conversation.id}
                  conversation={conversation}
                  channel={integrationNames.get(conversation.integrationId) ?? `Integration #${conversation.integrationId}`}
                  stageName={conversation.stageId ? stageNames.get(conversation.stageId) : undefined}
                  teamName={conversation.teamId ? teamNames.get(conversation.teamId) : undefined}
                  assigneeName={conversation.assigneeId === me ? 'You' : team.nameOf(conversation.assigneeId)}
                  current={conversation.id === id}
                  selected={selectedIds.has(conversation.id)}
                  onSelect={(on) => setSelectedIds((ids) => {
                    const next = new Set(ids);
                    if (on) next.add(conversation.id);
                    else next.delete(conversation.id);
                    return next;
                  })}
                />
              ))}
            </ul>
            <LoadMore list={list} />
          </>
        )}
      </div>

      <ShortcutHelp open={help} onClose={() => setHelp(false)} />
      <div className="detail-pane">
        {id ? (
          <ConversationDetailView
            key={id}
            id={id}
            stages={stages}
            integrationName={(integrationId) => integrationNames.get(integrationId)}
            teamName={(id) => teamNames.get(id)}
            teams={supportTeams.data?.teams}
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
