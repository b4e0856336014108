import { useEffect, useId, useLayoutEffect, useRef, useState, type FormEvent, type KeyboardEvent } from 'react';
import { describeError, newIdempotencyKey } from '../api/client.js';
import {
  assignConversation,
  getConversation,
  getConversationEvents,
  markConversationRead,
  resolveConversation,
  sendOperatorMessage,
  sessionAction,
  setConversationStage,
  unassignConversation,
} from '../api/endpoints.js';
import { useAuth } from '../auth.js';
import { formatWaiting, HANDOFF_REASON } from '../lib/inbox.js';
import type { Conversation, ConversationDetail, ConversationEvent, Message, Stage, Teammate } from '../api/types.js';
import { AssignDialog } from '../components/AssignDialog.js';
import { useShortcuts } from '../lib/shortcuts.js';
import { teammateName, useTeam } from '../lib/team.js';
import { channelLabel, CustomerIds, customerLabel, SessionStateBadge } from '../components/conversation.js';
import { useToast } from '../components/Toasts.js';
import { TriageControls } from '../components/Triage.js';
import { Badge, Button, ConfirmDialog, EmptyState, ErrorState, Skeleton, Time } from '../components/ui.js';
import { describeConversationEvent } from '../lib/eventSentences.js';
import type { SupportTeam } from '../api/supportTeams.js';
import { ConversationTeamControl } from '../components/ConversationTeam.js';
import { answerFactsOfEvent, answerFactsOfMessage } from '../lib/answerFacts.js';
import { AnswerSources } from '../components/AnswerSources.js';
import { t } from '../lib/messages.js';
import { describePausedReason, formatShort } from '../lib/format.js';
import { useAsync } from '../lib/useAsync.js';
import { useStreamEvents } from '../lib/useStream.js';
import { CustomerPanel } from '../components/CustomerPanel.js';
import { useCannedReplyPicker } from '../components/CannedReplyPicker.js';
import { HandoffSummaryCard } from '../components/HandoffSummary.js';
import { ActionCallCard } from '../components/ActionCallCard.js';
import { callIdOf, foldActionCalls, interleaveCalls } from '../lib/actionCalls.js';
import { listActionCalls, type ActionCall } from '../api/actionCalls.js';
import { PendingActionCard } from '../components/PendingAction.js';
import { MakeTestCase } from '../components/MakeTestCase.js';
import { NoteBox } from '../components/NoteBox.js';

type SessionAction = 'pause' | 'resume' | 'close' | 'reopen';

const AUTHOR_LABEL: Record<Message['author'], string> = {
  customer: 'Customer',
  agent: 'AI agent',
  operator: 'Operator',
  system: 'System',
  note: 'Internal note',
};

export function ConversationDetailView({
  id,
  stages,
  integrationName,
  teamName = () => undefined,
  teams = [],
  onChange,
  onBack,
}: {
  id: string;
  stages: Stage[];
  integrationName: (integrationId: number) => string | undefined;
  /** A support team's name (undefined: unknown or still loading). */
  teamName?: (teamId: string) => string | undefined;
  /** The company's support teams, for the header's Team select (none: no select). */
  teams?: SupportTeam[];
  onChange: (conversation: Conversation) => void;
  onBack: () => void;
}) {
  const toast = useToast();
  const me = useAuth().me?.user.id;
  const team = useTeam();
  const detail = useAsync((signal) => getConversation(id, { signal }), [id]);
  const [resolution, setResolution] = useState('');
  const [eventsTick, setEventsTick] = useState(0);
  // The conversation's action calls, shown inline between its messages (the newest 200: a conversation has few).
  const calls = useAsync((signal) => listActionCalls({ conversationId: id }, null, { signal, limit: 200 }), [id, eventsTick]);
  const [tab, setTab] = useState<'messages' | 'events'>('messages');
  const [acting, setActing] = useState<string | null>(null);
  const [stageSaving, setStageSaving] = useState(false);
  const tabsId = useId();

  useStreamEvents((event) => {
    if (event.type === 'resync' || event.conversationId === id) {
      detail.reload();
      setEventsTick((t) => t + 1);
    }
  });

  const applyConversation = (conversation: Conversation) => {
    detail.setData((d) => (d ? { ...d, conversation } : d));
    onChange(conversation);
  };

  // Opening the conversation reads it: its unread count drops to 0 for this teammate (and again as new messages arrive).
  const unread = detail.data?.conversation.unread ?? 0;
  useEffect(() => {
    if (unread === 0) return;
    let cancelled = false;
    markConversationRead(id).then(
      (conversation) => {
        if (!cancelled) applyConversation(conversation);
      },
      () => undefined,
    );
    return () => {
      cancelled = true;
    };
  }, [id, unread]);

  async function assign(to: 'me' | 'nobody' | Teammate) {
    if (!me) return;
    const assignee = to === 'me' ? me : to === 'nobody' ? null : to.id;
    setActing(to === 'nobody' ? 'unassign' : 'assign');
    try {
      applyConversation(assignee ? await assignConversation(id, assignee) : await unassignConversation(id));
      toast.success(assignee === null ? 'Unassigned' : assignee === me ? 'Assigned to you' : `Assigned to ${teammateName(to as Teammate)}`);
      setPicking(false);
    } catch (error) {
      toast.error(describeError(error));
    } finally {
      setActing(null);
    }
  }

  const [confirmClose, setConfirmClose] = useState(false);
  const [picking, setPicking] = useState(false);
  const sessionState = detail.data?.conversation.session?.state;
  useShortcuts({
    a: detail.data ? () => setPicking(true) : undefined,
    c: sessionState === 'active' || sessionState === 'paused' ? () => setConfirmClose(true) : undefined,
    // On the Messages tab the reply box answers "r" itself; from the event history, go back to it first.
    r:
      tab === 'events'
        ? () => {
            setTab('messages');
            requestAnimationFrame(() => document.querySelector<HTMLTextAreaElement>('.reply-box textarea')?.focus());
          }
        : undefined,
  });
  const sessionButtons = useRef<HTMLDivElement>(null);
  // Pause and Resume (Close and Reopen) replace each other: focus goes to the button now in the toggled one's place,
  // not back to <body>, so a keyboard user can toggle again.
  const refocus = useRef(false);
  useEffect(() => {
    if (!refocus.current || acting !== null) return;
    refocus.current = false;
    sessionButtons.current?.querySelector<HTMLButtonElement>('button[data-session-toggle]:not([disabled])')?.focus();
  });

  async function act(action: SessionAction) {
    setActing(action);
    try {
      applyConversation(action === 'close' ? await resolveConversation(id, resolution) : await sessionAction(id, action));
      if (action === 'close') setResolution('');
      toast.success(t.conversation.done[action]);
      setConfirmClose(false);
    } catch (error) {
      toast.error(describeError(error));
    } finally {
      refocus.current = true;
      setActing(null);
    }
  }

  async function changeStage(stageId: string) {
    const previous = detail.data?.conversation;
    if (!previous || !stageId || stageId === previous.stageId) return;
    setStageSaving(true);
    detail.setData((d) => (d ? { ...d, conversation: { ...d.conversation, stageId } } : d));
    try {
      applyConversation(await setConversationStage(id, stageId));
      toast.success(`Moved to ${stages.find((s) => s.id === stageId)?.name ?? 'the new stage'}`);
    } catch (error) {
      detail.setData((d) => (d ? { ...d, conversation: previous } : d));
      toast.error(describeError(error));
    } finally {
      setStageSaving(false);
    }
  }

  if (detail.loading && !detail.data) {
    return (
      <div className="detail card">
        <Skeleton rows={8} label="Loading the conversation…" />
      </div>
    );
  }
  if (detail.error && !detail.data) {
    return (
      <div className="detail">
        <BackButton onBack={onBack} />
        <ErrorState error={detail.error} onRetry={detail.reload} title="Could not load this conversation" />
      </div>
    );
  }
  if (!detail.data) return null;

  const { conversation, messages } = detail.data;
  const state = conversation.session?.state ?? null;
  const pausedReason = conversation.session?.pausedReason;
  const customer = conversation.customer;

  const onTabKey = (event: KeyboardEvent<HTMLButtonElement>) => {
    if (event.key === 'ArrowRight' || event.key === 'ArrowLeft' || event.key === 'Home' || event.key === 'End') {
      event.preventDefault();
      const next = tab === 'messages' ? 'events' : 'messages';
      const target = event.key === 'Home' ? 'messages' : event.key === 'End' ? 'events' : next;
      setTab(target);
      document.getElementById(`${tabsId}-tab-${target}`)?.focus();
    }
  };

  return (
    <section className="detail" aria-labelledby={`${tabsId}-title`}>
      <BackButton onBack={onBack} />
      <header className="detail-header card">
        <div className="detail-title-row">
          <div>
            <h2 className="detail-title" id={`${tabsId}-title`}>
              {customerLabel(conversation)}
            </h2>
            <p className="muted small detail-sub">
              <span data-testid="detail-channel">
                {channelLabel(conversation)} · {integrationName(conversation.integrationId) ?? `Integration #${conversation.integrationId}`}
              </span>{' '}
              <CustomerIds clientId={customer.clientId} channelId={customer.channelId} />
              {conversation.teamId && teamName(conversation.teamId) ? (
                <span data-testid="detail-team"> · team {teamName(conversation.teamId)}</span>
              ) : null}
            </p>
          </div>
          <div className="session-block">
            <span className="session-label">AI session</span>
            <SessionStateBadge conversation={conversation} testId="session-state" />
          </div>
        </div>
        {conversation.handoff && (
          <p className="notice notice-error" data-testid="handoff">
            <strong>Needs human:</strong> {HANDOFF_REASON[conversation.handoff.reason] ?? 'Handed off'}
            {conversation.handoff.detail ? ` (${conversation.handoff.detail})` : ''} · waiting{' '}
            <span data-testid="handoff-waiting" title={conversation.handoff.since}>
              {formatWaiting(conversation.handoff.since)}
            </span>
            {conversation.handoff.backAt && (
              <span data-testid="handoff-after-hours">
                {' '}
                · after hours, queued for <Time iso={conversation.handoff.backAt} />
              </span>
            )}
          </p>
        )}
        <TriageControls conversation={conversation} onChanged={applyConversation} />
        {teams.length > 0 && <ConversationTeamControl conversation={conversation} teams={teams} onChanged={applyConversation} />}
        {conversation.handoff && conversation.handoffSummary && <HandoffSummaryCard summary={conversation.handoffSummary} />}
        {conversation.pendingAction && <PendingActionCard conversationId={conversation.id} pending={conversation.pendingAction} onDecided={applyConversation} />}
        {state === 'closed' && conversation.resolution && (
          <p className="notice" data-testid="resolution">
            <strong>Resolved:</strong> {conversation.resolution}
          </p>
        )}
        <div className="button-row assignment" role="group" aria-label="Assignment">
          <span className="muted small" data-testid="assignee-label">
            {conversation.assigneeId ? (conversation.assigneeId === me ? 'Assigned to you' : `Assigned to ${team.nameOf(conversation.assigneeId) ?? '…'}`) : 'Unassigned'}
          </span>
          {conversation.assigneeId !== me && (
            <Button onClick={() => void assign('me')} busy={acting === 'assign' && !picking} disabled={acting !== null || !me} data-testid="assign-to-me">
              Assign to me
            </Button>
          )}
          <Button onClick={() => setPicking(true)} disabled={acting !== null || !me} data-testid="assign-to" title="Assign to a teammate (a)">
            Assign to…
          </Button>
          {conversation.assigneeId && (
            <Button onClick={() => void assign('nobody')} busy={acting === 'unassign'} disabled={acting !== null} data-testid="unassign">
              Unassign
            </Button>
          )}
          <AssignDialog
            open={picking}
            title="Assign to a teammate"
            current={conversation.assigneeId}
            busy={acting === 'assign'}
            onPick={(teammate) => void assign(teammate)}
            onClose={() => setPicking(false)}
          />
          <MakeTestCase conversationId={conversation.id} messages={messages} />
        </div>
        {state === 'paused' && (
          <p className={`notice ${pausedReason === 'credits_exhausted' ? 'notice-error' : 'notice-warning'}`} data-testid="paused-reason">
            {describePausedReason(pausedReason)}
            {pausedReason === 'credits_exhausted' && ' — the AI will not answer until credits are added.'}
          </p>
        )}
        <div className="detail-actions">
          <div className="button-row" role="group" aria-label={t.conversation.sessionGroup} ref={sessionButtons}>
            {state === 'active' && (
              <Button data-session-toggle onClick={() => act('pause')} busy={acting === 'pause'} disabled={acting !== null}>
                {t.conversation.pause}
              </Button>
            )}
            {state === 'paused' && (
              <Button data-session-toggle variant="primary" onClick={() => act('resume')} busy={acting === 'resume'} disabled={acting !== null}>
                {t.conversation.resume}
              </Button>
            )}
            {(state === 'active' || state === 'paused') && (
              <Button variant="danger" onClick={() => setConfirmClose(true)} busy={acting === 'close'} disabled={acting !== null}>
                {t.conversation.close}
              </Button>
            )}
            {state === 'closed' && (
              <>
                <Button data-session-toggle onClick={() => act('reopen')} busy={acting === 'reopen'} disabled={acting !== null}>
                  {t.conversation.reopen}
                </Button>
                <span className="muted small">{t.conversation.closedHint}</span>
              </>
            )}
            {state === null && <span className="muted small">{t.conversation.noSessionHint}</span>}
          </div>
          <ConfirmDialog
            open={confirmClose}
            title={t.conversation.closeTitle}
            message={
              <>
                <p>{t.conversation.closeBody}</p>
                <label className="field-label" htmlFor={`${tabsId}-resolution`}>
                  Resolution (optional)
                </label>
                <textarea
                  id={`${tabsId}-resolution`}
                  className="input"
                  data-testid="resolution-input"
                  maxLength={500}
                  rows={2}
                  value={resolution}
                  placeholder="How was it resolved? Kept on the conversation and in its history."
                  onChange={(event) => setResolution(event.target.value)}
                />
              </>
            }
            confirmLabel={t.conversation.close}
            busy={acting === 'close'}
            onConfirm={() => void act('close')}
            onCancel={() => setConfirmClose(false)}
          />
          <div className="stage-control">
            <label htmlFor={`${tabsId}-stage`} className="field-label">
              Stage
            </label>
            <select
              id={`${tabsId}-stage`}
              className="input select"
              data-testid="stage-select"
              value={conversation.stageId ?? ''}
              disabled={stageSaving || stages.length === 0}
              onChange={(event) => void changeStage(event.target.value)}
            >
              {!conversation.stageId && <option value="">No stage</option>}
              {stages.map((stage) => (
                <option key={stage.id} value={stage.id}>
                  {stage.name}
                </option>
              ))}
            </select>
          </div>
        </div>
      </header>

      <div className="tabs" role="tablist" aria-label="Conversation views">
        <button
          type="button"
          role="tab"
          id={`${tabsId}-tab-messages`}
          aria-selected={tab === 'messages'}
          aria-controls={`${tabsId}-panel-messages`}
          tabIndex={tab === 'messages' ? 0 : -1}
          className="tab"
          onClick={() => setTab('messages')}
          onKeyDown={onTabKey}
        >
          Messages <span className="tab-count">{messages.length}</span>
        </button>
        <button
          type="button"
          role="tab"
          id={`${tabsId}-tab-events`}
          aria-selected={tab === 'events'}
          aria-controls={`${tabsId}-panel-events`}
          tabIndex={tab === 'events' ? 0 : -1}
          className="tab"
          onClick={() => setTab('events')}
          onKeyDown={onTabKey}
        >
          Event history
        </button>
      </div>

      {tab === 'messages' ? (
        <div role="tabpanel" id={`${tabsId}-panel-messages`} aria-labelledby={`${tabsId}-tab-messages`} className="tabpanel">
          <div className="messages-layout">
            <div className="messages-column card">
              <MessageList messages={messages} calls={calls.data?.items ?? []} nameOf={(userId) => (userId === me ? 'you' : (team.nameOf(userId) ?? 'a former teammate'))} />
              <ReplyBox conversationId={id} onSent={detail.reload} closed={state === 'closed'} />
              <NoteBox conversationId={id} onAdded={detail.reload} />
            </div>
            <div className="conversation-side">
              <SharedContext detail={detail.data} />
              <CustomerPanel conversation={conversation} />
            </div>
          </div>
        </div>
      ) : (
        <div role="tabpanel" id={`${tabsId}-panel-events`} aria-labelledby={`${tabsId}-tab-events`} className="tabpanel">
          <EventHistory conversationId={id} tick={eventsTick} stageName={(stageId) => stages.find((s) => s.id === stageId)?.name} teamName={teamName} />
        </div>
      )}
    </section>
  );
}

function BackButton({ onBack }: { onBack: () => void }) {
  return (
    <Button variant="ghost" size="sm" className="back-button" onClick={onBack}>
      ← All conversations
    </Button>
  );
}

function MessageList({ messages, calls, nameOf }: { messages: Message[]; calls: ActionCall[]; nameOf: (userId: string) => string }) {
  const ref = useRef<HTMLOListElement>(null);
  const stick = useRef(true);
  useLayoutEffect(() => {
    const el = ref.current;
    if (el && stick.current) el.scrollTop = el.scrollHeight;
  }, [messages.length, calls.length]);

  if (messages.length === 0 && calls.length === 0) {
    return <EmptyState title="No messages yet">Messages from the customer, the AI agent and operators appear here.</EmptyState>;
  }
  return (
    <ol
      className="messages"
      ref={ref}
      aria-label="Messages"
      tabIndex={0}
      onScroll={(event) => {
        const el = event.currentTarget;
        stick.current = el.scrollHeight - el.scrollTop - el.clientHeight < 80;
      }}
    >
      {interleaveCalls(messages, calls).map((entry) => {
        if (entry.kind === 'call') {
          return (
            <li key={entry.call.callId} className="message-action-call">
              <ActionCallCard call={entry.call} nameOf={nameOf} />
            </li>
          );
        }
        const message = entry.message;
        const facts = answerFactsOfMessage(message);
        return (
          <li key={message.id} className={`message message-${message.author}`} data-testid="message" data-author={message.author} data-delivery={message.delivery}>
            <div className="message-meta">
              <span className="message-author">{message.author === 'note' && message.note ? `Internal note · ${nameOf(message.note.authorId)}` : (AUTHOR_LABEL[message.author] ?? message.author)}</span>
              <Time iso={message.createdAt} format={formatShort} />
              <DeliveryState message={message} />
            </div>
            <div className="message-text">{message.text}</div>
            {facts && <AnswerSources facts={facts} />}
          </li>
        );
      })}
    </ol>
  );
}

function DeliveryState({ message }: { message: Message }) {
  const { delivery, author } = message;
  switch (delivery) {
    case 'failed':
      // The reason as one sentence, not only in the event history.
      return (
        <Badge tone="danger" className="delivery-error" data-testid="delivery-failed" title={message.deliveryError ?? undefined}>
          {message.deliveryError ? `Not delivered: ${message.deliveryError}` : 'Failed to deliver'}
        </Badge>
      );
    case 'pending':
      return <span className="delivery delivery-pending">Sending…</span>;
    case 'sent':
      return message.deliveredTo === 'sandbox' ? (
        <span className="delivery delivery-sent" data-testid="delivery-sandbox" title="The integration has no platform API URL: the reply was kept here and sent nowhere">
          ✓ Delivered to sandbox
        </span>
      ) : (
        <span className="delivery delivery-sent">✓ Sent</span>
      );
    case 'received':
      return author === 'customer' || author === 'note' ? null : <span className="delivery">Received</span>;
    default:
      return null;
  }
}

function ReplyBox({ conversationId, onSent, closed }: { conversationId: string; onSent: () => void; closed: boolean }) {
  const toast = useToast();
  const [text, setText] = useState('');
  const [sending, setSending] = useState(false);
  const id = useId();
  const textareaRef = useRef<HTMLTextAreaElement>(null);
  // The text last tried and its key: trying the same text again after a failure reuses the key (sent once at most).
  const attempt = useRef<{ text: string; key: string } | null>(null);
  const canned = useCannedReplyPicker({ text, setText, textarea: textareaRef });
  useShortcuts({ r: () => textareaRef.current?.focus() });

  async function submit(event?: FormEvent) {
    event?.preventDefault();
    const value = text.trim();
    if (!value || sending) return;
    setSending(true);
    try {
      if (attempt.current?.text !== value) attempt.current = { text: value, key: newIdempotencyKey() };
      await sendOperatorMessage(conversationId, value, attempt.current.key);
      attempt.current = null;
      setText('');
      toast.success('Message queued for delivery');
      onSent();
    } catch (error) {
      toast.error(describeError(error));
    } finally {
      setSending(false);
    }
  }

  return (
    <form className="reply-box" onSubmit={submit}>
      <label htmlFor={id} className="field-label">
        Reply as operator
      </label>
      <div className="canned-anchor">
      {canned.popup}
      <textarea
        ref={textareaRef}
        {...canned.inputProps}
        id={id}
        className="input textarea"
        rows={3}
        value={text}
        placeholder={closed ? 'The session is closed — your message still goes to the customer' : 'Write a message to the customer…'}
        onChange={(event) => setText(event.target.value)}
        onKeyDown={(event) => {
          if (canned.onKeyDown(event)) return;
          if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) void submit();
        }}
        aria-describedby={`${id}-hint`}
      />
      </div>
      <div className="reply-foot">
        <span id={`${id}-hint`} className="field-hint">
          Sent through the customer’s channel. Ctrl+Enter to send; type / for a canned reply.
        </span>
        <Button type="submit" variant="primary" busy={sending} disabled={!text.trim()}>
          Send
        </Button>
      </div>
    </form>
  );
}

function SharedContext({ detail }: { detail: ConversationDetail }) {
  const transfers = detail.context?.transfers ?? [];
  const notes = detail.context?.notes ?? [];
  return (
    <aside className="context card" aria-labelledby="shared-context-title">
      <h3 id="shared-context-title" className="section-title">
        Shared context
      </h3>
      <h4 className="subsection-title">Transfers</h4>
      {transfers.length === 0 ? (
        <p className="muted small">No transfers to human operators.</p>
      ) : (
        <ul className="transfer-list" data-testid="transfers">
          {transfers.map((transfer, index) => (
            <li key={`${String(transfer.requestId)}-${index}`} className="transfer">
              <dl className="kv kv-compact">
                <dt>Dialog</dt>
                <dd>{transfer.dialogId ?? '—'}</dd>
                <dt>Request</dt>
                <dd>{transfer.requestId ?? '—'}</dd>
                <dt>Time</dt>
                <dd>
                  <Time iso={transfer.at} />
                </dd>
              </dl>
            </li>
          ))}
        </ul>
      )}
      {notes.length > 0 && (
        <>
          <h4 className="subsection-title">Notes</h4>
          <ul className="note-list">
            {notes.map((note, index) => (
              <li key={index} className="small">
                {typeof note === 'string' ? note : <pre className="json">{JSON.stringify(note, null, 2)}</pre>}
              </li>
            ))}
          </ul>
        </>
      )}
      <h4 className="subsection-title">Conversation</h4>
      <dl className="kv kv-compact">
        <dt>Started</dt>
        <dd>
          <Time iso={detail.conversation.createdAt} />
        </dd>
        <dt>Last message</dt>
        <dd>
          <Time iso={detail.conversation.lastMessageAt} />
        </dd>
        <dt>Messages</dt>
        <dd>{detail.conversation.messageCount}</dd>
        <dt>Connector</dt>
        <dd>{detail.conversation.connectorType}</dd>
      </dl>
    </aside>
  );
}

function EventHistory({
  conversationId,
  tick,
  stageName,
  teamName,
}: {
  conversationId: string;
  tick: number;
  stageName: (id: string) => string | undefined;
  teamName: (id: string) => string | undefined;
}) {
  const me = useAuth().me?.user.id;
  const team = useTeam();
  const events = useAsync((signal) => getConversationEvents(conversationId, { signal }), [conversationId, tick]);
  // Which events show their JSON, by position (stable across live reloads of the list).
  const [open, setOpen] = useState<Set<string>>(new Set());

  useEffect(() => setOpen(new Set()), [conversationId]);

  if (events.loading && !events.data) return <Skeleton rows={6} label={t.events.loading} />;
  if (events.error && !events.data) return <ErrorState error={events.error} onRetry={events.reload} title={t.events.loadError} />;
  const list: ConversationEvent[] = events.data ?? [];
  if (list.length === 0) return <EmptyState title={t.events.empty} />;
  const calls = foldActionCalls(list, conversationId);
  const teammate = (userId: string) => (userId === me ? 'you' : team.nameOf(userId));
  const deciderName = (userId: string) => teammate(userId) ?? 'a former teammate';
  const keyOf = (event: ConversationEvent) => `${String(event.position)}-${String(event.revision)}`;
  const toggle = (key: string) =>
    setOpen((current) => {
      const next = new Set(current);
      if (!next.delete(key)) next.add(key);
      return next;
    });

  return (
    <div className="card">
      <div className="toolbar">
        <p className="muted small">{t.events.intro(list.length)}</p>
        <div className="toolbar-end button-row">
          <Button size="sm" onClick={() => setOpen(new Set(list.map(keyOf)))}>
            {t.events.showAllJson}
          </Button>
          <Button size="sm" onClick={() => setOpen(new Set())}>
            {t.events.hideAllJson}
          </Button>
        </div>
      </div>
      <ol className="event-list" aria-label={t.events.listLabel}>
        {list.map((event) => {
          const key = keyOf(event);
          // An action call's events are one card, where its request is; the rest of them are in that card.
          const callId = callIdOf(event);
          const call = callId ? calls.get(callId) : undefined;
          if (call) {
            if (event.type !== 'ActionCallRequested') return null;
            return (
              <li key={key} className="event" data-testid="event-action-call" data-type="ActionCall">
                <ActionCallCard call={call} nameOf={deciderName}>
                  <ol className="action-call-steps" aria-label={`Events of the call to ${call.actionName}`}>
                    {list.filter((e) => callIdOf(e) === callId).map((e) => (
                      <li key={keyOf(e)} className="small" data-testid="action-call-step" data-type={e.type}>
                        {describeConversationEvent(e, stageName, teammate, teamName)} <span className="muted"><Time iso={e.createdAt} /></span>
                      </li>
                    ))}
                  </ol>
                </ActionCallCard>
              </li>
            );
          }
          const shown = open.has(key);
          const jsonId = `event-json-${key}`;
          const facts = answerFactsOfEvent(event);
          return (
            <li key={key} className="event" data-testid="event" data-type={event.type}>
              <div className="event-row">
                <p className="event-sentence" data-testid="event-sentence">
                  {describeConversationEvent(event, stageName, teammate, teamName)}
                </p>
                <span className="event-time">
                  <Time iso={event.createdAt} />
                </span>
              </div>
              {facts && <AnswerSources facts={facts} />}
              <div className="event-foot">
                <span className="event-type" title={t.events.typeTitle}>
                  {event.type}
                </span>
                <span className="event-pos" title={t.events.positionTitle}>
                  #{String(event.position)} · rev {String(event.revision)}
                </span>
                <Button size="sm" variant="ghost" className="event-json-toggle" aria-expanded={shown} aria-controls={jsonId} onClick={() => toggle(key)}>
                  {shown ? t.common.hideJson : t.common.showJson}
                </Button>
              </div>
              {shown && (
                <pre className="json" id={jsonId} aria-label={t.events.dataLabel(event.type)}>
                  {JSON.stringify(event.data, null, 2)}
                </pre>
              )}
            </li>
          );
        })}
      </ol>
    </div>
  );
}
