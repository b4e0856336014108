import { useEffect, useId, useLayoutEffect, useRef, useState, type FormEvent, type KeyboardEvent } from 'react';
import { describeError } from '../api/client.js';
import { getConversation, getConversationEvents, sendOperatorMessage, sessionAction, setConversationStage } from '../api/endpoints.js';
import type { Conversation, ConversationDetail, ConversationEvent, Message, Stage } from '../api/types.js';
import { customerLabel, SessionStateBadge } from '../components/conversation.js';
import { useToast } from '../components/Toasts.js';
import { Badge, Button, EmptyState, ErrorState, Skeleton, Time } from '../components/ui.js';
import { describePausedReason, formatShort, humanize } from '../lib/format.js';
import { useAsync } from '../lib/useAsync.js';
import { useStreamEvents } from '../lib/useStream.js';

const AUTHOR_LABEL: Record<Message['author'], string> = {
  customer: 'Customer',
  agent: 'AI agent',
  operator: 'Operator',
  system: 'System',
};

export function ConversationDetailView({
  id,
  stages,
  integrationName,
  onChange,
  onBack,
}: {
  id: string;
  stages: Stage[];
  integrationName: (integrationId: number) => string | undefined;
  onChange: (conversation: Conversation) => void;
  onBack: () => void;
}) {
  const toast = useToast();
  const detail = useAsync((signal) => getConversation(id, { signal }), [id]);
  const [tab, setTab] = useState<'messages' | 'events'>('messages');
  const [eventsTick, setEventsTick] = useState(0);
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

  async function act(action: 'pause' | 'resume' | 'close') {
    setActing(action);
    try {
      applyConversation(await sessionAction(id, action));
      toast.success(action === 'pause' ? 'AI paused — you can reply yourself' : action === 'resume' ? 'AI resumed' : 'Session closed');
    } catch (error) {
      toast.error(describeError(error));
    } finally {
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
              {integrationName(conversation.integrationId) ?? `Integration #${conversation.integrationId}`}
              {customer.transport ? ` · ${customer.transport}` : ''} · client {String(customer.clientId)}
              {customer.channelId !== undefined && customer.channelId !== null ? ` · channel ${String(customer.channelId)}` : ''}
            </p>
          </div>
          <div className="session-block">
            <span className="session-label">AI session</span>
            <SessionStateBadge conversation={conversation} testId="session-state" />
          </div>
        </div>
        {state === 'paused' && (
          <p className={`notice ${pausedReason === 'credits_exhausted' ? 'notice-error' : 'notice-warning'}`} data-testid="paused-reason">
            {describePausedReason(pausedReason)}
            {pausedReason === 'credits_exhausted' && ' — the AI will not answer until credits are added.'}
          </p>
        )}
        <div className="detail-actions">
          <div className="button-row" role="group" aria-label="AI session">
            {state === 'active' && (
              <Button onClick={() => act('pause')} busy={acting === 'pause'} disabled={acting !== null}>
                Pause
              </Button>
            )}
            {state === 'paused' && (
              <Button variant="primary" onClick={() => act('resume')} busy={acting === 'resume'} disabled={acting !== null}>
                Resume
              </Button>
            )}
            {(state === 'active' || state === 'paused') && (
              <Button variant="danger" onClick={() => act('close')} busy={acting === 'close'} disabled={acting !== null}>
                Close session
              </Button>
            )}
            {state === 'closed' && <span className="muted small">The AI session is closed. A new customer message starts a new one.</span>}
            {state === null && <span className="muted small">No AI session yet. The next customer message starts one.</span>}
          </div>
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
              <MessageList messages={messages} />
              <ReplyBox conversationId={id} onSent={detail.reload} closed={state === 'closed'} />
            </div>
            <SharedContext detail={detail.data} />
          </div>
        </div>
      ) : (
        <div role="tabpanel" id={`${tabsId}-panel-events`} aria-labelledby={`${tabsId}-tab-events`} className="tabpanel">
          <EventHistory conversationId={id} tick={eventsTick} />
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

function MessageList({ messages }: { messages: Message[] }) {
  const ref = useRef<HTMLOListElement>(null);
  const stick = useRef(true);
  useLayoutEffect(() => {
    const el = ref.current;
    if (el && stick.current) el.scrollTop = el.scrollHeight;
  }, [messages.length]);

  if (messages.length === 0) {
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
      {messages.map((message) => (
        <li key={message.id} className={`message message-${message.author}`} data-testid="message" data-author={message.author} data-delivery={message.delivery}>
          <div className="message-meta">
            <span className="message-author">{AUTHOR_LABEL[message.author] ?? message.author}</span>
            <Time iso={message.createdAt} format={formatShort} />
            <DeliveryState message={message} />
          </div>
          <div className="message-text">{message.text}</div>
        </li>
      ))}
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
      return author === 'customer' ? null : <span className="delivery">Received</span>;
    default:
      return null;
  }
}

function ReplyBox({ conversationId, onSent, closed }: { conversationId: string; onSent: () => void; closed: boolean }) {
  const toast = useToast();
  const [text, setText] = useState('');
  const [sending, setSending] = useState(false);
  const id = useId();

  async function submit(event?: FormEvent) {
    event?.preventDefault();
    const value = text.trim();
    if (!value || sending) return;
    setSending(true);
    try {
      await sendOperatorMessage(conversationId, value);
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
      <textarea
        id={id}
        className="input textarea"
        rows={3}
        value={text}
        placeholder={closed ? 'The session is closed — your message still goes to the customer' : 'Write a message to the customer…'}
        onChange={(event) => setText(event.target.value)}
        onKeyDown={(event) => {
          if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) void submit();
        }}
        aria-describedby={`${id}-hint`}
      />
      <div className="reply-foot">
        <span id={`${id}-hint`} className="field-hint">
          Sent through the customer’s channel. Ctrl+Enter to send.
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

function EventHistory({ conversationId, tick }: { conversationId: string; tick: number }) {
  const events = useAsync((signal) => getConversationEvents(conversationId, { signal }), [conversationId, tick]);
  const [expandAll, setExpandAll] = useState<boolean | null>(null);
  const [version, setVersion] = useState(0);

  useEffect(() => setExpandAll(null), [conversationId]);

  if (events.loading && !events.data) return <Skeleton rows={6} label="Loading the event history…" />;
  if (events.error && !events.data) return <ErrorState error={events.error} onRetry={events.reload} title="Could not load the event history" />;
  const list: ConversationEvent[] = events.data ?? [];
  if (list.length === 0) return <EmptyState title="No events recorded for this conversation" />;

  return (
    <div className="card">
      <div className="toolbar">
        <p className="muted small">
          The audit trail: every event stored for this conversation, in order. {list.length} event{list.length === 1 ? '' : 's'}.
        </p>
        <div className="toolbar-end button-row">
          <Button
            size="sm"
            onClick={() => {
              setExpandAll(true);
              setVersion((v) => v + 1);
            }}
          >
            Expand all
          </Button>
          <Button
            size="sm"
            onClick={() => {
              setExpandAll(false);
              setVersion((v) => v + 1);
            }}
          >
            Collapse all
          </Button>
        </div>
      </div>
      <ol className="event-list" aria-label="Event history">
        {list.map((event) => (
          <li key={`${String(event.position)}-${String(event.revision)}`} className="event" data-testid="event" data-type={event.type}>
            <details open={expandAll ?? false} key={version}>
              <summary>
                <span className="event-pos" title="Position in the event store">
                  #{String(event.position)}
                </span>
                <span className="event-rev" title="Revision in the conversation's stream">
                  rev {String(event.revision)}
                </span>
                <span className="event-type">{event.type}</span>
                <span className="event-time">
                  <Time iso={event.createdAt} />
                </span>
              </summary>
              <pre className="json" aria-label={`${humanize(event.type)} data`}>
                {JSON.stringify(event.data, null, 2)}
              </pre>
            </details>
          </li>
        ))}
      </ol>
    </div>
  );
}
