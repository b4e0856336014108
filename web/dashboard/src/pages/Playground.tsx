import { useEffect, useLayoutEffect, useRef, useState, type FormEvent, type KeyboardEvent } from 'react';
import { ApiError, describeError } from '../api/client.js';
import { getAgent } from '../api/endpoints.js';
import {
  askPlayground,
  getPlayground,
  listPlaygroundSessions,
  PLAYGROUND_MAX_TEXT,
  startPlayground,
  type PlaygroundActions,
  type PlaygroundSession,
  type PlaygroundSessionSummary,
  type PlaygroundTurn,
} from '../api/playground.js';
import { useAuth } from '../auth.js';
import { AnswerSources } from '../components/AnswerSources.js';
import { useToast } from '../components/Toasts.js';
import { Badge, Button, EmptyState, ErrorState, PageHeader, Skeleton, Time } from '../components/ui.js';
import { formatRelative, formatShort } from '../lib/format.js';
import { Link } from '../lib/router.js';
import { useAsync } from '../lib/useAsync.js';

/** The session a teammate last used with an agent, so a reload continues it. */
const storageKey = (agentId: string) => `mas.playground.${agentId}`;

/** A question sent and not answered yet (shown as "thinking" until its turn comes back). */
interface Pending {
  key: string;
  text: string;
}

function explain(error: unknown): string {
  if (error instanceof ApiError && error.code === 'CREDITS_EXHAUSTED') return 'Out of credits: top up, or switch the LLM settings to the builtin provider to keep trying.';
  if (error instanceof ApiError && error.code === 'RATE_LIMITED') return 'Your company already has as many playground questions waiting for the model as it may — try again in a moment.';
  if (error instanceof ApiError && error.code === 'LLM_ERROR') return `No answer: ${error.message}`;
  return describeError(error);
}

/** Chat with an agent from the dashboard: its saved configuration, no platform, no customer. */
export function PlaygroundPage({ agentId }: { agentId: string }) {
  const toast = useToast();
  const agent = useAsync((signal) => getAgent(agentId, { signal }), [agentId]);
  // null: a new session, started on the server by its first question (a visit alone leaves no empty session).
  const [session, setSession] = useState<PlaygroundSession | null>(null);
  const [opening, setOpening] = useState(true);
  const [loadError, setLoadError] = useState<unknown>(null);
  const [pending, setPending] = useState<Pending[]>([]);
  const [text, setText] = useState('');
  const [starting, setStarting] = useState(false);
  const [lastError, setLastError] = useState<string | null>(null);
  // Bumped whenever the sessions list may have changed (a session started, opened or asked in).
  const [listVersion, setListVersion] = useState(0);
  const refreshList = () => setListVersion((v) => v + 1);
  // How a new session answers the agent's action calls: sample responses unless an owner or admin picks live.
  const [actions, setActions] = useState<PlaygroundActions>('mocked');
  const role = useAuth().me?.user.role;
  const mayGoLive = role === 'owner' || role === 'admin';

  /** Opens a past session from the list; it becomes the one a reload continues. */
  async function openSession(sessionId: string) {
    if (session?.session.id === sessionId) return;
    setLoadError(null);
    setLastError(null);
    try {
      const opened = await getPlayground(sessionId);
      localStorage.setItem(storageKey(agentId), sessionId);
      setSession(opened);
      setPending([]);
    } catch (error) {
      toast.error(explain(error));
      refreshList();
    }
  }

  /** A fresh, empty session: nothing is stored until its first question. */
  function newSession() {
    localStorage.removeItem(storageKey(agentId));
    setLoadError(null);
    setLastError(null);
    setSession(null);
    setPending([]);
    setOpening(false);
  }

  /** The session the first question starts; it becomes the one a reload continues. */
  async function startSession(): Promise<PlaygroundSession> {
    setStarting(true);
    try {
      const started = await startPlayground(agentId, actions);
      localStorage.setItem(storageKey(agentId), started.session.id);
      setSession(started);
      refreshList();
      return started;
    } finally {
      setStarting(false);
    }
  }

  useEffect(() => {
    const stored = localStorage.getItem(storageKey(agentId));
    const controller = new AbortController();
    setSession(null);
    if (!stored) {
      newSession();
    } else {
      setOpening(true);
      getPlayground(stored, { signal: controller.signal })
        .then((opened) => {
          setSession(opened);
          setOpening(false);
        })
        .catch((error: unknown) => {
          if (controller.signal.aborted) return;
          if (error instanceof ApiError && error.status === 404) newSession();
          else setLoadError(error);
        });
    }
    return () => controller.abort();
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [agentId]);

  async function send(event?: FormEvent) {
    event?.preventDefault();
    const question = text.trim();
    if (opening || starting || !question) return;
    const key = `${Date.now()}-${Math.random()}`;
    setText('');
    setLastError(null);
    setPending((list) => [...list, { key, text: question }]);
    let sessionId = session?.session.id ?? null;
    try {
      sessionId ??= (await startSession()).session.id;
      const turn = await askPlayground(sessionId, question);
      setSession((current) => (current && current.session.id === sessionId ? { ...current, session: { ...current.session, questionCount: current.session.questionCount + 1 }, turns: [...current.turns, turn] } : current));
    } catch (error) {
      setLastError(explain(error));
      if (error instanceof ApiError && error.code === 'LLM_ERROR' && sessionId) {
        // The failure is recorded in the session: show it where the answer would be.
        const fresh = await getPlayground(sessionId).catch(() => null);
        if (fresh) setSession((current) => (current?.session.id === sessionId ? fresh : current));
      } else if (!(error instanceof ApiError && error.status === 400)) {
        toast.error(explain(error));
      }
      if (error instanceof ApiError && error.status !== 502) setText((current) => current || question);
    } finally {
      setPending((list) => list.filter((p) => p.key !== key));
      refreshList();
    }
  }

  function onKeyDown(event: KeyboardEvent<HTMLTextAreaElement>) {
    if (event.key === 'Enter' && !event.shiftKey && !event.nativeEvent.isComposing) {
      event.preventDefault();
      void send();
    }
  }

  const name = agent.data?.name ?? 'agent';
  const full = session !== null && session.session.questionCount >= session.session.questionLimit;
  return (
    <>
      <PageHeader
        title={`Playground: ${name}`}
        description={
          <>
            <Link to="/agents" className="back-link">
              ← All agents
            </Link>{' '}
            <span className="muted">Try the agent with its saved settings. Nothing here reaches a customer; answers are charged like replies.</span>
          </>
        }
        actions={
          <Button onClick={newSession} disabled={starting} data-testid="playground-new-session">
            New session
          </Button>
        }
      />
      {agent.error ? (
        <ErrorState error={agent.error} onRetry={agent.reload} title="Could not load the agent" />
      ) : loadError ? (
        <ErrorState error={loadError} onRetry={newSession} title="Could not open a playground session" />
      ) : opening ? (
        <div className="card">
          <Skeleton rows={4} label="Opening the playground…" />
        </div>
      ) : (
        <section className="card playground" aria-label="Playground chat" data-testid="playground">
          <Transcript turns={session?.turns ?? []} pending={pending} agentName={name} />
          <form className="playground-form" onSubmit={send}>
            {lastError && (
              <p className="playground-error" role="alert" data-testid="playground-error">
                {lastError}
              </p>
            )}
            <label className="visually-hidden" htmlFor="playground-input">
              Your question
            </label>
            <textarea
              id="playground-input"
              className="input playground-input"
              placeholder={full ? 'This session is full — start a new one' : `Ask ${name} something, as a customer would…`}
              value={text}
              maxLength={PLAYGROUND_MAX_TEXT}
              rows={2}
              disabled={full}
              onChange={(event) => setText(event.target.value)}
              onKeyDown={onKeyDown}
              data-testid="playground-input"
            />
            <div className="playground-form-foot">
              {session ? (
                <Badge tone={session.session.actions === 'live' ? 'warning' : 'neutral'} data-testid="playground-actions-mode">
                  {session.session.actions === 'live' ? 'Actions: live' : 'Actions: mocked'}
                </Badge>
              ) : (
                <label className="small playground-actions">
                  Action calls{' '}
                  <select className="input" value={actions} onChange={(event) => setActions(event.target.value as PlaygroundActions)} data-testid="playground-actions">
                    <option value="mocked">Mocked (sample responses)</option>
                    <option value="live" disabled={!mayGoLive}>
                      Live (calls your systems{mayGoLive ? '' : '; owners and admins'})
                    </option>
                  </select>
                </label>
              )}
              <span className="muted small">
                {session ? `${session.session.questionCount}/${session.session.questionLimit} questions` : 'A new session, started by your first question'} · Enter sends,
                Shift+Enter for a new line
              </span>
              <Button type="submit" variant="primary" disabled={full || text.trim() === ''} data-testid="playground-send">
                Send
              </Button>
            </div>
          </form>
        </section>
      )}
      {!agent.error && <RecentSessions agentId={agentId} currentId={session?.session.id ?? null} version={listVersion} onOpen={(id) => void openSession(id)} />}
    </>
  );
}

/** The agent's recent sessions (every teammate's), newest activity first: open one to read or continue it. */
function RecentSessions({ agentId, currentId, version, onOpen }: { agentId: string; currentId: string | null; version: number; onOpen: (sessionId: string) => void }) {
  const me = useAuth().me;
  const [more, setMore] = useState<{ sessions: PlaygroundSessionSummary[]; nextCursor: string | null } | null>(null);
  const [loadingMore, setLoadingMore] = useState(false);
  const first = useAsync((signal) => listPlaygroundSessions({ agentId }, { signal }), [agentId, version]);
  useEffect(() => setMore(null), [agentId, version]);
  const sessions = [...(first.data?.sessions ?? []), ...(more?.sessions ?? [])];
  const nextCursor = more ? more.nextCursor : (first.data?.nextCursor ?? null);

  async function loadMore() {
    if (!nextCursor) return;
    setLoadingMore(true);
    try {
      const page = await listPlaygroundSessions({ agentId, cursor: nextCursor });
      setMore((current) => ({ sessions: [...(current?.sessions ?? []), ...page.sessions], nextCursor: page.nextCursor }));
    } finally {
      setLoadingMore(false);
    }
  }

  const who = (startedBy: string) => (me && startedBy === `user:${me.user.id}` ? 'you' : 'a teammate');
  return (
    <section className="card playground-sessions" aria-label="Recent sessions" data-testid="playground-sessions">
      <h2 className="card-title">Recent sessions</h2>
      {first.error ? (
        <ErrorState error={first.error} onRetry={first.reload} title="Could not load the sessions" />
      ) : first.data === undefined ? (
        <Skeleton rows={2} label="Loading sessions…" />
      ) : sessions.length === 0 ? (
        <p className="muted small">No sessions yet.</p>
      ) : (
        <ul className="playground-session-list">
          {sessions.map((s) => (
            <li key={s.id}>
              <button
                type="button"
                className={`playground-session${s.id === currentId ? ' is-current' : ''}`}
                aria-current={s.id === currentId ? 'true' : undefined}
                onClick={() => onOpen(s.id)}
                data-testid="playground-session"
                data-session-id={s.id}
              >
                <span className="playground-session-title">{s.firstQuestion ?? 'No questions yet'}</span>
                <span className="muted small">
                  {s.questionCount} {s.questionCount === 1 ? 'question' : 'questions'} · started by {who(s.startedBy)} · {formatRelative(s.lastActivityAt)}
                </span>
              </button>
            </li>
          ))}
        </ul>
      )}
      {nextCursor && (
        <Button size="sm" onClick={() => void loadMore()} busy={loadingMore} data-testid="playground-sessions-more">
          Show older sessions
        </Button>
      )}
    </section>
  );
}

function Transcript({ turns, pending, agentName }: { turns: PlaygroundTurn[]; pending: Pending[]; agentName: string }) {
  const ref = useRef<HTMLOListElement>(null);
  useLayoutEffect(() => {
    const el = ref.current;
    if (el) el.scrollTop = el.scrollHeight;
  }, [turns.length, pending.length]);
  if (turns.length === 0 && pending.length === 0) {
    return (
      <div className="messages playground-messages">
        <EmptyState title="Ask your first question">Write what a customer would ask; the answer shows which knowledge-base passages it used, its tokens, latency and cost.</EmptyState>
      </div>
    );
  }
  return (
    <ol className="messages playground-messages" ref={ref} aria-label="Playground messages" tabIndex={0}>
      {turns.map((turn) => (
        <Turn key={turn.question.id} turn={turn} agentName={agentName} />
      ))}
      {pending.map((p) => (
        <li key={p.key} className="message-pair">
          <Question text={p.text} at={null} />
          <div className="message message-agent" data-testid="playground-thinking">
            <span className="muted">{agentName} is thinking…</span>
          </div>
        </li>
      ))}
    </ol>
  );
}

function Question({ text, at }: { text: string; at: string | null }) {
  return (
    <div className="message message-customer" data-testid="playground-question">
      <div className="message-meta">
        <span className="message-author">You</span>
        {at && <Time iso={at} format={formatShort} />}
      </div>
      <div className="message-text">{text}</div>
    </div>
  );
}

function Turn({ turn, agentName }: { turn: PlaygroundTurn; agentName: string }) {
  return (
    <li className="message-pair">
      <Question text={turn.question.text} at={turn.question.at} />
      {turn.answer ? (
        <div className="message message-agent" data-testid="playground-answer">
          <div className="message-meta">
            <span className="message-author">{agentName}</span>
            <Time iso={turn.answer.at} format={formatShort} />
            {turn.answer.handoff && (
              <Badge tone="warning" title="With a customer, this answer would hand the conversation to a human">
                handoff
              </Badge>
            )}
          </div>
          <div className="message-text">{turn.answer.text}</div>
          <AnswerSources open facts={{ model: turn.answer.model, inputTokens: turn.answer.inputTokens, outputTokens: turn.answer.outputTokens, provenance: turn.answer.provenance, handoff: turn.answer.handoff }} />
        </div>
      ) : turn.failure ? (
        <div className="message message-system" data-testid="playground-failure">
          No answer: {turn.failure.reason}
        </div>
      ) : (
        <div className="message message-system">No answer recorded.</div>
      )}
    </li>
  );
}
