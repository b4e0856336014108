import { useEffect, useMemo, useRef, useState, type DragEvent } from 'react';
import { ApiError, describeError } from '../api/client.js';
import { getConversation, getPipeline, listConversations, listIntegrations, setConversationStage } from '../api/endpoints.js';
import type { Conversation, Stage } from '../api/types.js';
import { byLastActivity, customerLabel, SessionStateBadge } from '../components/conversation.js';
import { LiveIndicator } from '../components/LiveIndicator.js';
import { useToast } from '../components/Toasts.js';
import { LoadMore } from '../components/LoadMore.js';
import { Button, EmptyState, ErrorState, PageHeader, Skeleton } from '../components/ui.js';
import { formatNumber, formatRelative } from '../lib/format.js';
import { t } from '../lib/messages.js';
import { Link } from '../lib/router.js';
import { useAsync } from '../lib/useAsync.js';
import { usePaged } from '../lib/usePaged.js';
import { useStreamEvents } from '../lib/useStream.js';

const NO_STAGE = '__none__';
const DRAG_TYPE = 'application/x-conversation-id';

export function PipelinePage() {
  const toast = useToast();
  const pipeline = useAsync((signal) => getPipeline({ signal }), []);
  const integrations = useAsync((signal) => listIntegrations({ signal }), []);
  const conversations = usePaged<Conversation>((cursor, signal) => listConversations({}, cursor, 200, { signal }), []);
  const { setItems, reload } = conversations;
  const [dragging, setDragging] = useState<string | null>(null);
  const [over, setOver] = useState<string | null>(null);
  const [moving, setMoving] = useState<Set<string>>(new Set());
  // The card the pointer went down on. Browsers pick the drag source when the pointer starts moving;
  // if the board scrolled in between (auto-scroll, scripted drags) that can be another card.
  const pressed = useRef<string | null>(null);

  const stages = useMemo(() => [...(pipeline.data?.stages ?? [])].sort((a, b) => a.position - b.position), [pipeline.data]);
  const integrationNames = useMemo(() => new Map((integrations.data ?? []).map((i) => [i.id, i.name])), [integrations.data]);

  const columns = useMemo(() => {
    const known = new Set(stages.map((s) => s.id));
    const groups = new Map<string, Conversation[]>(stages.map((s) => [s.id, []]));
    const none: Conversation[] = [];
    for (const conversation of conversations.items ?? []) {
      if (conversation.stageId && known.has(conversation.stageId)) groups.get(conversation.stageId)!.push(conversation);
      else none.push(conversation);
    }
    return { groups, none };
  }, [stages, conversations.items]);

  const pending = useRef(new Set<string>());
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  useStreamEvents((event) => {
    if (event.type === 'resync') return reload();
    pending.current.add(event.conversationId);
    if (timer.current) return;
    timer.current = setTimeout(() => {
      timer.current = undefined;
      const ids = [...pending.current];
      pending.current.clear();
      for (const id of ids) {
        if (moving.has(id)) continue;
        getConversation(id).then(
          ({ conversation }) =>
            setItems((items) => (items ? [...items.filter((c) => c.id !== id), conversation].sort(byLastActivity) : items)),
          (error: unknown) => {
            if (error instanceof ApiError && error.status === 404) setItems((items) => items?.filter((c) => c.id !== id));
          },
        );
      }
    }, 250);
  });

  async function move(conversationId: string, stageId: string) {
    const conversation = conversations.items?.find((c) => c.id === conversationId);
    if (!conversation || conversation.stageId === stageId || stageId === NO_STAGE) return;
    const stageName = stages.find((s) => s.id === stageId)?.name ?? t.pipeline.theNewStage;
    setItems((items) => items?.map((c) => (c.id === conversationId ? { ...c, stageId } : c)));
    setMoving((set) => new Set(set).add(conversationId));
    try {
      const updated = await setConversationStage(conversationId, stageId);
      setItems((items) => items?.map((c) => (c.id === conversationId ? updated : c)));
      toast.success(t.pipeline.moved(customerLabel(conversation), stageName));
    } catch (error) {
      setItems((items) => items?.map((c) => (c.id === conversationId ? { ...c, stageId: conversation.stageId } : c)));
      toast.error(describeError(error));
    } finally {
      setMoving((set) => {
        const next = new Set(set);
        next.delete(conversationId);
        return next;
      });
    }
  }

  const loading = (pipeline.loading && !pipeline.data) || (conversations.loading && !conversations.items);
  const error = (!pipeline.data && pipeline.error) || (!conversations.items && conversations.error);

  const renderColumn = (stageId: string, name: string, items: Conversation[]) => {
    const headingId = `stage-${stageId}-title`;
    return (
      <section
        key={stageId}
        className={`board-column${over === stageId ? ' drop-target' : ''}`}
        aria-labelledby={headingId}
        data-testid={`stage-column-${stageId}`}
        onDragOver={(event: DragEvent) => {
          if (!dragging || stageId === NO_STAGE) return;
          event.preventDefault();
          event.dataTransfer.dropEffect = 'move';
          if (over !== stageId) setOver(stageId);
        }}
        onDragLeave={(event: DragEvent<HTMLElement>) => {
          if (!event.currentTarget.contains(event.relatedTarget as Node | null)) setOver((o) => (o === stageId ? null : o));
        }}
        onDrop={(event: DragEvent) => {
          event.preventDefault();
          const id = event.dataTransfer.getData(DRAG_TYPE) || event.dataTransfer.getData('text/plain') || dragging;
          setOver(null);
          setDragging(null);
          if (id) void move(id, stageId);
        }}
      >
        <h2 className="board-column-title" id={headingId}>
          <span>{name}</span>
          <span className="tab-count" aria-label={t.pipeline.columnCount(items.length)}>
            {formatNumber(items.length)}
          </span>
        </h2>
        <ul className="board-cards">
          {items.length === 0 && <li className="board-empty">{t.pipeline.dropHere}</li>}
          {items.map((conversation) => (
            <PipelineCard
              key={conversation.id}
              conversation={conversation}
              stages={stages}
              integrationName={integrationNames.get(conversation.integrationId)}
              busy={moving.has(conversation.id)}
              dragging={dragging === conversation.id}
              onPointerDown={() => {
                pressed.current = conversation.id;
              }}
              onDragStart={(event) => {
                const id = pressed.current ?? conversation.id;
                event.dataTransfer.setData(DRAG_TYPE, id);
                event.dataTransfer.setData('text/plain', id);
                event.dataTransfer.effectAllowed = 'move';
                setDragging(id);
              }}
              onDragEnd={() => {
                pressed.current = null;
                setDragging(null);
                setOver(null);
              }}
              onMove={(target) => void move(conversation.id, target)}
            />
          ))}
        </ul>
      </section>
    );
  };

  return (
    <>
      <PageHeader
        title={t.pipeline.title}
        description={t.pipeline.description}
        actions={
          <>
            <LiveIndicator />
            <Button onClick={() => { pipeline.reload(); reload(); }}>{t.common.refresh}</Button>
          </>
        }
      />
      {loading ? (
        <div className="board">
          {[0, 1, 2].map((i) => (
            <div key={i} className="board-column">
              <Skeleton rows={3} />
            </div>
          ))}
        </div>
      ) : error ? (
        <ErrorState
          error={error}
          onRetry={() => {
            pipeline.reload();
            reload();
          }}
          title={t.pipeline.loadError}
        />
      ) : stages.length === 0 ? (
        <EmptyState title={t.pipeline.noStages} />
      ) : (
        <>
          {conversations.items && conversations.items.length === 0 && (
            <p className="notice notice-info">{t.pipeline.empty}</p>
          )}
          <div className="board" data-testid="pipeline-board">
            {columns.none.length > 0 && renderColumn(NO_STAGE, t.pipeline.noStage, columns.none)}
            {stages.map((stage) => renderColumn(stage.id, stage.name, columns.groups.get(stage.id) ?? []))}
          </div>
          <LoadMore list={conversations}>{t.common.loadMore}</LoadMore>
        </>
      )}
    </>
  );
}

function PipelineCard({
  conversation,
  stages,
  integrationName,
  busy,
  dragging,
  onPointerDown,
  onDragStart,
  onDragEnd,
  onMove,
}: {
  conversation: Conversation;
  stages: Stage[];
  integrationName: string | undefined;
  busy: boolean;
  dragging: boolean;
  onPointerDown: () => void;
  onDragStart: (event: DragEvent<HTMLLIElement>) => void;
  onDragEnd: () => void;
  onMove: (stageId: string) => void;
}) {
  const selectId = `move-${conversation.id}`;
  const current = conversation.stageId ?? '';
  // The stage chosen in the menu but not yet confirmed; follows the card when it moves by drag or live update.
  const [draft, setDraft] = useState(current);
  useEffect(() => setDraft(current), [current]);
  return (
    <li
      className={`board-card${dragging ? ' is-dragging' : ''}${busy ? ' is-busy' : ''}`}
      data-testid={`pipeline-card-${conversation.id}`}
      data-stage-id={conversation.stageId ?? ''}
      draggable
      onPointerDown={onPointerDown}
      onDragStart={onDragStart}
      onDragEnd={onDragEnd}
      aria-busy={busy || undefined}
    >
      <div className="board-card-head">
        <Link to={`/conversations/${encodeURIComponent(conversation.id)}`} className="board-card-title" title={customerLabel(conversation)} draggable={false}>
          {customerLabel(conversation)}
        </Link>
        <SessionStateBadge conversation={conversation} />
      </div>
      <p className="muted small board-card-meta">
        {integrationName ?? `Integration #${conversation.integrationId}`}
        {conversation.customer.transport ? ` · ${conversation.customer.transport}` : ''} · {formatRelative(conversation.lastMessageAt ?? conversation.createdAt)}
      </p>
      <form
        className="board-card-move"
        onSubmit={(event) => {
          // Only an explicit confirmation moves the card: arrowing through the options (which fires "change" on a
          // closed select in Chromium) must not.
          event.preventDefault();
          if (draft !== current) onMove(draft);
        }}
      >
        <label htmlFor={selectId} className="small muted">
          {t.pipeline.moveTo}
        </label>
        <select
          id={selectId}
          className="input select select-sm"
          value={draft}
          disabled={busy}
          onChange={(event) => setDraft(event.target.value)}
          onKeyDown={(event) => {
            if (event.key === 'Enter' && draft !== current) {
              event.preventDefault();
              onMove(draft);
            }
          }}
        >
          {!conversation.stageId && <option value="">{t.pipeline.noStage}</option>}
          {stages.map((stage) => (
            <option key={stage.id} value={stage.id}>
              {stage.name}
            </option>
          ))}
        </select>
        {draft !== current && (
          <Button type="submit" size="sm" variant="primary" disabled={busy} aria-label={t.pipeline.moveButtonLabel(stages.find((s) => s.id === draft)?.name ?? '')}>
            {t.pipeline.move}
          </Button>
        )}
      </form>
    </li>
  );
}
