import { useEffect, useMemo, useState, type FormEvent, type ReactNode } from 'react';
import { ApiError, describeError } from '../api/client.js';
import { listAgents, listConversations } from '../api/endpoints.js';
import {
  cancelReplay,
  estimateReplay,
  getReplay,
  listReplays,
  startReplay,
  type Replay,
  type ReplayAnswer,
  type ReplayDraft,
  type ReplayEstimate,
} from '../api/replays.js';
import { searchMessages } from '../api/search.js';
import type { AnswerThreshold, Conversation } from '../api/types.js';
import { useAuth } from '../auth.js';
import { AnswerSources } from '../components/AnswerSources.js';
import { CardSection } from '../components/CardSection.js';
import { useToast } from '../components/Toasts.js';
import { LoadMoreButton } from '../components/LoadMore.js';
import { Badge, Button, EmptyState, ErrorState, InlineError, PageHeader, SelectField, Skeleton, Switch, TextAreaField, TextField, Time } from '../components/ui.js';
import { countOf, formatMicros, formatNumber } from '../lib/format.js';
import { Link, navigate } from '../lib/router.js';
import { useAsync } from '../lib/useAsync.js';
import { useDebounced } from '../lib/useDebounced.js';
import { usePaged } from '../lib/usePaged.js';
import './replays.css';

/** Most conversations one replay may take (the API's limit). */
const MAX_CONVERSATIONS = 20;
const DEFAULT_PROMPT = 'You are a helpful customer support agent. Answer politely and concisely.';

const statusTone = (s: Replay['status']) => (s === 'completed' ? 'success' : s === 'running' ? 'info' : s === 'failed' ? 'danger' : 'neutral');

export function ReplaysPage({ id }: { id: string | null }) {
  return id ? <ReplayDetail key={id} id={id} /> : <ReplayList />;
}

function ReplayList() {
  const { me } = useAuth();
  const manager = me?.user.role === 'owner' || me?.user.role === 'admin';
  const replays = usePaged((cursor, signal) => listReplays(cursor, { signal }), []);
  return (
    <>
      <PageHeader
        title="Replay"
        description="Try a draft agent on past conversations: each customer message is answered again with the draft, from the conversation as it was at that point, and shown next to the recorded answer. Nothing is sent to customers."
      />
      {manager && <NewReplay />}
      <CardSection title="Past replays">
        {replays.loading && !replays.items ? (
          <Skeleton rows={3} />
        ) : replays.error && !replays.items ? (
          <ErrorState error={replays.error} onRetry={replays.reload} title="Could not load the replays" />
        ) : !replays.items?.length ? (
          <EmptyState title="No replays yet" />
        ) : (
          <ul className="replay-list">
            {replays.items.map((r) => (
              <li key={r.id}>
                <Link to={`/replays/${r.id}`} className="replay-list-item">
                  <Badge tone={statusTone(r.status)}>{r.status}</Badge>
                  <span>
                    {formatNumber(r.progress.done)} / {countOf(r.progress.total, 'message')} · {countOf(r.conversations.length, 'conversation')} · {formatMicros(r.spentCostMicros)}
                  </span>
                  <span className="muted">
                    <Time iso={r.createdAt} />
                  </span>
                </Link>
              </li>
            ))}
          </ul>
        )}
        <LoadMoreButton list={replays} />
      </CardSection>
    </>
  );
}

function NewReplay() {
  const toast = useToast();
  const agents = useAsync((signal) => listAgents({ signal }), []);
  const [agentId, setAgentId] = useState('');
  const [systemPrompt, setSystemPrompt] = useState(DEFAULT_PROMPT);
  const [model, setModel] = useState('');
  const [temperature, setTemperature] = useState('0.3');
  const [useKnowledgeBase, setUseKnowledgeBase] = useState(true);
  const [answerThreshold, setAnswerThreshold] = useState<AnswerThreshold>('balanced');
  const [generalAnswers, setGeneralAnswers] = useState(false);
  const [selected, setSelected] = useState<string[]>([]);
  const [filter, setFilter] = useState('');
  const [estimate, setEstimate] = useState<ReplayEstimate | null>(null);
  const [busy, setBusy] = useState<'estimate' | 'start' | null>(null);
  const [error, setError] = useState<unknown>(null);
  const conversations = usePaged((cursor, signal) => listConversations({}, cursor, 50, { signal }), []);

  const pickAgent = (id: string) => {
    setAgentId(id);
    const agent = agents.data?.find((a) => a.id === id);
    if (!agent) return;
    setSystemPrompt(agent.systemPrompt ?? DEFAULT_PROMPT);
    setModel(agent.model ?? '');
    setTemperature(String(agent.temperature ?? 0.3));
    setUseKnowledgeBase(agent.useKnowledgeBase);
    setAnswerThreshold(agent.answerThreshold ?? 'balanced');
    setGeneralAnswers(agent.generalAnswers ?? false);
  };
  // Any change to the draft or the selection makes the estimate stale: it must be made (and confirmed) again.
  useEffect(() => setEstimate(null), [systemPrompt, model, temperature, useKnowledgeBase, answerThreshold, generalAnswers, selected]);

  const t = Number(temperature);
  const temperatureError = temperature.trim() === '' || !Number.isFinite(t) || t < 0 || t > 2 ? 'Use a number from 0 to 2' : null;
  const draft: ReplayDraft = { basedOnAgentId: agentId || null, systemPrompt, model: model.trim() || null, temperature: t, useKnowledgeBase, answerThreshold, generalAnswers };
  // The list holds the pages loaded so far; a filter also asks the server's search (customer names and messages),
  // so a conversation beyond those pages can be picked without loading them all.
  const searched = useDebounced(filter.trim(), 300);
  const found = useAsync(
    async (signal): Promise<Picked[]> => {
      if (!searched) return [];
      const hits = await searchMessages(searched, null, { signal });
      const byConversation = new Map<string, Picked>();
      for (const hit of hits.items) {
        if (!byConversation.has(hit.conversationId)) byConversation.set(hit.conversationId, { id: hit.conversationId, name: hit.customerName ?? 'Customer', detail: hit.snippet.text });
      }
      return [...byConversation.values()];
    },
    [searched],
  );
  const visible = useMemo((): Picked[] => {
    const q = filter.trim().toLowerCase();
    const loaded = (conversations.items ?? []).filter((c) => !q || nameOf(c).toLowerCase().includes(q) || c.id.startsWith(q)).map(pickedOf);
    const seen = new Set(loaded.map((c) => c.id));
    return [...loaded, ...(q ? (found.data ?? []).filter((c) => !seen.has(c.id)) : [])];
  }, [conversations.items, filter, found.data]);

  const toggle = (id: string, on: boolean) =>
    setSelected((s) => (on ? (s.includes(id) || s.length >= MAX_CONVERSATIONS ? s : [...s, id]) : s.filter((x) => x !== id)));

  async function onEstimate(event: FormEvent) {
    event.preventDefault();
    if (temperatureError || selected.length === 0 || !systemPrompt.trim()) return;
    setBusy('estimate');
    setError(null);
    try {
      setEstimate(await estimateReplay({ draft, conversationIds: selected }));
    } catch (err) {
      setError(err);
    } finally {
      setBusy(null);
    }
  }

  async function onStart() {
    if (!estimate) return;
    setBusy('start');
    setError(null);
    try {
      const replay = await startReplay({ draft, conversationIds: selected }, estimate);
      toast.success('Replay started');
      navigate(`/replays/${replay.id}`);
    } catch (err) {
      // The estimate moved (the conversations grew, the price changed): show the new one to confirm again.
      if (err instanceof ApiError && err.code === 'CONFLICT') setEstimate(await estimateReplay({ draft, conversationIds: selected }).catch(() => null));
      setError(err);
      setBusy(null);
    }
  }

  return (
    <form className="card form replay-form" onSubmit={onEstimate} aria-labelledby="new-replay-title">
      <h2 className="section-title" id="new-replay-title">
        New replay
      </h2>
      <div className="replay-form-grid">
        <div className="replay-draft">
          <SelectField label="Start from agent" value={agentId} onValueChange={pickAgent} hint="Copies its settings into the draft; the agent itself is not changed.">
            <option value="">— none —</option>
            {(agents.data ?? []).map((a) => (
              <option key={a.id} value={a.id}>
                {a.name}
              </option>
            ))}
          </SelectField>
          <TextAreaField label="System prompt" rows={6} value={systemPrompt} onValueChange={setSystemPrompt} required />
          <div className="form-row">
            <TextField label="Model" value={model} onValueChange={setModel} placeholder="LLM settings' model" />
            <TextField label="Temperature" type="number" inputMode="decimal" min={0} max={2} step={0.1} value={temperature} onValueChange={setTemperature} error={temperatureError} />
          </div>
          <Switch label="Use the knowledge base" checked={useKnowledgeBase} onChange={setUseKnowledgeBase} />
          <SelectField
            label="When to answer"
            value={answerThreshold}
            onValueChange={(value) => setAnswerThreshold(value as AnswerThreshold)}
            hint="Replay with another setting to see which past questions it would have answered and which it would have handed off."
          >
            <option value="strict">Strict: hands off more, fewest wrong answers</option>
            <option value="balanced">Balanced (default)</option>
            <option value="lenient">Lenient: answers more, more wrong answers</option>
          </SelectField>
          <Switch label="Allow general answers" checked={generalAnswers} onChange={setGeneralAnswers} hint="With your own model: answers citing no passage are sent rather than handed off." />
        </div>
        <fieldset className="replay-pick">
          <legend className="field-label">
            Conversations <span className="muted">({selected.length} of at most {MAX_CONVERSATIONS} selected; each replays its last 50 customer messages)</span>
          </legend>
          <TextField label="Filter" type="search" value={filter} onValueChange={setFilter} placeholder="Customer name" />
          {conversations.loading && !conversations.items ? (
            <Skeleton rows={3} />
          ) : conversations.error && !conversations.items ? (
            <ErrorState error={conversations.error} onRetry={conversations.reload} title="Could not load the conversations" />
          ) : (
            <ul className="replay-conversations" data-testid="replay-conversations">
              {visible.map((c) => (
                <li key={c.id}>
                  <label className="replay-conversation">
                    <input
                      type="checkbox"
                      checked={selected.includes(c.id)}
                      disabled={!selected.includes(c.id) && selected.length >= MAX_CONVERSATIONS}
                      onChange={(e) => toggle(c.id, e.target.checked)}
                    />
                    <span className="replay-conversation-name">{c.name}</span>
                    <span className="muted">{c.detail}</span>
                  </label>
                </li>
              ))}
              {visible.length === 0 && <li className="muted">{found.loading && searched ? 'Searching…' : 'No conversation matches.'}</li>}
            </ul>
          )}
          <LoadMoreButton list={conversations} size="sm">
            Load more conversations
          </LoadMoreButton>
        </fieldset>
      </div>
      <InlineError error={error} />
      {estimate && (
        <p className="notice replay-estimate" data-testid="replay-estimate" role="status">
          {countOf(estimate.messages, 'message')} to answer with {estimate.model} · about {formatNumber(estimate.inputTokens)} + {formatNumber(estimate.outputTokens)} tokens ·
          estimated cost <strong>{formatMicros(estimate.costMicros)}</strong>
          {estimate.provider === 'builtin' ? ' (the builtin provider is free)' : ', charged to your credits as it is spent'}.
        </p>
      )}
      <div className="form-actions">
        <Button type="submit" busy={busy === 'estimate'} disabled={selected.length === 0 || Boolean(temperatureError)}>
          Estimate
        </Button>
        <Button variant="primary" onClick={onStart} busy={busy === 'start'} disabled={!estimate || estimate.messages === 0}>
          {estimate ? `Confirm ${formatMicros(estimate.costMicros)} and start` : 'Start replay'}
        </Button>
      </div>
    </form>
  );
}

const nameOf = (c: Conversation) => c.customer.displayName ?? c.customer.name ?? String(c.customer.clientId);

/** A conversation in the picker: from the loaded list, or found by the server's search (with the matching text). */
interface Picked {
  id: string;
  name: string;
  detail: ReactNode;
}
const pickedOf = (c: Conversation): Picked => ({
  id: c.id,
  name: nameOf(c),
  detail: (
    <>
      {countOf(c.messageCount, 'message')} · <Time iso={c.lastMessageAt} />
    </>
  ),
});

function ReplayDetail({ id }: { id: string }) {
  const toast = useToast();
  const { me } = useAuth();
  const manager = me?.user.role === 'owner' || me?.user.role === 'admin';
  const [replay, setReplay] = useState<Replay | null>(null);
  const [answers, setAnswers] = useState<ReplayAnswer[]>([]);
  const [nextCursor, setNextCursor] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [tick, setTick] = useState(0);
  const [cancelling, setCancelling] = useState(false);

  // The first page again every second while it runs (answers land in order per conversation), then once.
  useEffect(() => {
    const controller = new AbortController();
    getReplay(id, null, { signal: controller.signal }).then(
      (r) => {
        setReplay(r.replay);
        setAnswers((known) => (known.length > r.answers.length ? [...r.answers, ...known.slice(r.answers.length)] : r.answers));
        setNextCursor((c) => c ?? r.nextCursor);
        setError(null);
      },
      (err) => !controller.signal.aborted && setError(err),
    );
    return () => controller.abort();
  }, [id, tick]);
  useEffect(() => {
    if (replay?.status !== 'running') return;
    const timer = setTimeout(() => setTick((n) => n + 1), 1000);
    return () => clearTimeout(timer);
  }, [replay, tick]);

  async function loadMore() {
    if (!nextCursor) return;
    const r = await getReplay(id, nextCursor);
    setAnswers((a) => [...a, ...r.answers]);
    setNextCursor(r.nextCursor);
  }

  async function onCancel() {
    setCancelling(true);
    try {
      setReplay(await cancelReplay(id));
      toast.success('Replay cancelled');
    } catch (err) {
      toast.error(describeError(err));
    } finally {
      setCancelling(false);
    }
  }

  if (error && !replay) return <ErrorState error={error} onRetry={() => setTick((n) => n + 1)} title="Could not load the replay" />;
  if (!replay) return <Skeleton rows={4} />;
  const { done, total } = replay.progress;
  return (
    <>
      <PageHeader
        title="Replay"
        description={
          <>
            <Link to="/replays">All replays</Link> · draft with {replay.model}, temperature {replay.draft.temperature}, knowledge base {replay.draft.useKnowledgeBase ? 'on' : 'off'}, answer setting {replay.draft.answerThreshold ?? 'balanced'}
          </>
        }
        actions={
          manager && replay.status === 'running' ? (
            <Button variant="danger" onClick={onCancel} busy={cancelling}>
              Cancel replay
            </Button>
          ) : undefined
        }
      />
      <section className="card replay-summary" aria-label="Progress">
        <Badge tone={statusTone(replay.status)} data-testid="replay-status">
          {replay.status}
        </Badge>
        <progress max={total} value={done} aria-label="Messages replayed" />
        <span data-testid="replay-progress">
          {formatNumber(done)} / {countOf(total, 'message')}
        </span>
        <span className="muted">
          spent {formatMicros(replay.spentCostMicros)} of an estimated {formatMicros(replay.estimatedCostMicros)}
        </span>
        {replay.failure && <p className="notice notice-error">{replay.failure.message}</p>}
      </section>
      {answers.length === 0 ? (
        <EmptyState title={replay.status === 'running' ? 'Answers appear here as they land' : 'No answers'} />
      ) : (
        <ol className="replay-comparison" data-testid="replay-comparison">
          {answers.map((a) => (
            <li key={`${a.conversationId}:${a.turn}`} className="card replay-turn">
              <div className="replay-customer">
                <span className="muted">
                  Customer · <Time iso={a.customerAt} />
                </span>
                <p className="replay-text">{a.customerText}</p>
              </div>
              <div className="replay-sides">
                <div className="replay-side" data-testid="replay-recorded">
                  <h3 className="replay-side-title">Recorded</h3>
                  <Recorded answer={a} />
                </div>
                <div className="replay-side replay-side-draft" data-testid="replay-draft">
                  <h3 className="replay-side-title">Draft</h3>
                  {a.draft.status === 'answered' ? (
                    <>
                      <p className="replay-text">{a.draft.text}</p>
                      {a.draft.handoff && <Badge tone="warning">hands off</Badge>}
                      <AnswerSources facts={{ model: a.draft.model, inputTokens: a.draft.inputTokens, outputTokens: a.draft.outputTokens, provenance: a.draft.provenance, handoff: a.draft.handoff }} />
                    </>
                  ) : (
                    <p className="notice notice-error">{a.draft.error}</p>
                  )}
                </div>
              </div>
            </li>
          ))}
        </ol>
      )}
      {nextCursor && <Button onClick={() => void loadMore().catch((err) => toast.error(describeError(err)))}>Load more answers</Button>}
    </>
  );
}

function Recorded({ answer }: { answer: ReplayAnswer }) {
  const r = answer.recorded;
  switch (r.kind) {
    case 'agent':
      return (
        <>
          <p className="replay-text">{r.text}</p>
          {r.handoff && <Badge tone="warning">handed off</Badge>}
          <AnswerSources facts={{ model: r.model, inputTokens: r.inputTokens, outputTokens: r.outputTokens, provenance: r.provenance ?? null, handoff: r.handoff }} />
        </>
      );
    case 'operator':
      return (
        <>
          <span className="muted">Answered by a teammate</span>
          <p className="replay-text">{r.text}</p>
        </>
      );
    case 'unanswered':
      return <p className="muted">Not answered by the AI: {r.reason}</p>;
    case 'none':
      return <p className="muted">No answer was recorded.</p>;
  }
}
