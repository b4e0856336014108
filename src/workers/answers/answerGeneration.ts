import { DEFAULT_ANSWER_THRESHOLD, evidenceThreshold, type AnswerThreshold } from '../../domain/answers/evidence.js';
import { MAX_ANSWER_SOURCES, type AnswerProvenance, type GeneratedAnswerFields } from '../../domain/answers/provenance.js';
import { billedUsage, costMicros, estimateUsage, type BilledUsage, type Pricing, type TokenUsage } from '../../domain/credits/decider.js';
import { isLlmError, promptChars, type LlmMessage, type LlmPassage, type LlmProvider, type LlmResponse, type LlmTool, type LlmToolStep, type LlmError } from '../../ports/llm.js';
import type { PassageSearch } from '../../ports/knowledgeSearch.js';
import type { Logger } from '../../ports/logger.js';
import type { ConversationEvent } from '../../domain/conversations/events.js';
import type { EventStore } from '../../ports/eventStore.js';
import { toDomainEvent } from '../../commands/handleCommand.js';
import { CONTEXT_MESSAGES, searchPlan } from '../../domain/knowledge/followUp.js';

/**
 * One AI answer, the same way wherever it is asked for (a customer's reply, the agent playground, a replay
 * evaluation): retrieve knowledge-base passages, call the model (retrying what is retryable), and say what
 * produced the answer. Nothing here appends events or charges: the caller decides what the answer becomes.
 * Below it, what an answer is made of and how it fails: the prompt (buildPrompt), the conversation's recent
 * history it is built from (readRecentHistory), and a model's failure in words a support team reads
 * (plainLlmFailure).
 */

/** The parts of an agent's configuration an answer depends on (a saved agent, or a draft being evaluated). */
export interface AnswerAgent {
  systemPrompt: string;
  temperature: number;
  useKnowledgeBase: boolean;
  handoffMessage: string;
  /** How much evidence the builtin provider needs to answer; absent: DEFAULT_ANSWER_THRESHOLD. */
  answerThreshold?: AnswerThreshold;
  /** A grounded model may answer without citing a passage; absent: false (such an answer is handed off). */
  generalAnswers?: boolean;
}

export interface AnswerDeps {
  searchKnowledge(companyId: string, query: string, limit: number): Promise<LlmPassage[]>;
  pricing: Pricing;
  /** Waits between LLM attempts after a retryable failure (the SDK retries too). */
  llmRetryDelaysMs: number[];
  logger: Logger;
}

export interface AnswerRequest {
  companyId: string;
  provider: LlmProvider;
  /** The model the company configured: asked for, and priced, whatever the endpoint reports. */
  model: string;
  agent: AnswerAgent;
  /** The prompt: system prompt, history and the question (see buildPrompt). */
  messages: LlmMessage[];
  /** What the knowledge base is searched with (the customer's pending messages). */
  question: string;
  signal?: AbortSignal;
  /**
   * Streams the answer as it is generated (providers that stream only): each text fragment with the number
   * of the attempt it belongs to (0, 1, …). A new attempt starts over: what an earlier one sent is void.
   */
  onDelta?: (text: string, attempt: number) => void;
  /** The company's actions the model may call, and the calls this answer made so far (replyActions.ts). */
  tools?: LlmTool[];
  toolTranscript?: LlmToolStep[];
  /** Passages already retrieved for this answer (a later round of the same answer): not searched again. */
  passages?: LlmPassage[];
}

export interface GeneratedAnswer {
  /** What the endpoint answered and reported. */
  response: LlmResponse;
  provenance: AnswerProvenance;
  /** What the answer is charged for (billedUsage): recorded with it, and what every charge of it uses. */
  billed: BilledUsage;
  /** The passages the prompt carried (a later round of the same answer reuses them). */
  passages?: LlmPassage[];
}

/** The answer as the playground and replays record it (generatedAnswerSchema). */
export const recordedFieldsOf = ({ response, provenance, billed }: GeneratedAnswer): GeneratedAnswerFields => ({
  text: response.text,
  model: billed.model.slice(0, 200),
  inputTokens: billed.inputTokens,
  outputTokens: billed.outputTokens,
  handoff: response.handoff === true,
  provenance,
});

/** `searchKnowledge` over a knowledge index: the passages with where each comes from, nothing else. */
export const searchPassages =
  (index: PassageSearch): AnswerDeps['searchKnowledge'] =>
  async (companyId, query, limit) =>
    (await index.search(companyId, query, { limit })).map(({ title, text, score, coverage, evidence, documentId, chunkIndex }) => ({
      title,
      text,
      score,
      coverage,
      ...(evidence !== undefined ? { evidence } : {}),
      documentId,
      chunkIndex,
    }));

const PASSAGES = 5;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * The answer's signal stopped it while the model was writing. The call was made and is billed by the provider,
 * but a stopped stream reports no usage: this carries an estimate (the prompt and what was written, over every
 * attempt), for the caller to charge.
 */
export class AnswerStopped extends Error {
  constructor(
    readonly model: string,
    readonly usage: TokenUsage,
  ) {
    super('the answer was stopped while it was being written');
    this.name = 'AnswerStopped';
  }
}

/** Throws what the provider throws (LlmError) once the retries are spent, or AnswerStopped. */
export async function generateAnswer(deps: AnswerDeps, request: AnswerRequest): Promise<GeneratedAnswer> {
  const searched = request.passages ? { passages: request.passages, query: null } : request.agent.useKnowledgeBase ? await searchFor(deps, request) : { passages: [], query: null };
  const passages = searched.passages;
  const started = performance.now();
  let attempts = 0;
  let writtenChars = 0;
  const onDelta = request.onDelta;
  let response: LlmResponse;
  try {
    response = await completeWithRetries(deps, request.provider, {
      model: request.model,
      temperature: request.agent.temperature,
      messages: request.messages,
      passages,
      ...(searched.query !== null && searched.query !== request.question ? { searchQuery: searched.query } : {}),
      handoffMessage: request.agent.handoffMessage,
      answerThreshold: request.agent.answerThreshold ?? DEFAULT_ANSWER_THRESHOLD,
      generalAnswers: request.agent.generalAnswers === true,
      ...(request.signal ? { signal: request.signal } : {}),
      ...(request.tools?.length ? { tools: request.tools } : {}),
      ...(request.toolTranscript?.length ? { toolTranscript: request.toolTranscript } : {}),
    }, onDelta && ((text, attempt) => {
      attempts = Math.max(attempts, attempt + 1);
      writtenChars += text.length;
      onDelta(text, attempt);
    }));
  } catch (err) {
    if (!request.signal?.aborted) throw err;
    // The signal only reaches the provider: stopped, the prompt was sent at least once.
    throw new AnswerStopped(request.model, estimateUsage(promptSize(request, passages) * Math.max(1, attempts), writtenChars));
  }
  const latencyMs = Math.round(performance.now() - started);
  const billed = billingOf(deps, request, response, promptSize(request, passages));
  return {
    response,
    billed,
    passages,
    provenance: {
      sources: sourcesOf(passages, response.usedPassages),
      latencyMs,
      costMicros: costMicros(billed.model, billed, deps.pricing.table, deps.pricing.defaultPrice),
      usageEstimated: response.usageEstimated === true || billed.usageSource === 'estimated',
      ...whyItAnswered(request.agent, response),
    },
  };
}

/**
 * The passages for the question, resolved with the conversation when it does not stand alone (followUp.ts): one
 * search, or two for a question that may or may not lean on the earlier one, whose stronger evidence wins.
 * `query`: what the chosen passages were searched with.
 */
async function searchFor(deps: AnswerDeps, request: AnswerRequest): Promise<{ passages: LlmPassage[]; query: string | null }> {
  const plan = searchPlan(request.question, earlierQuestions(request.messages));
  const first = await deps.searchKnowledge(request.companyId, plan.query, PASSAGES);
  if (plan.alternative === null) return { passages: first, query: plan.query };
  const second = await deps.searchKnowledge(request.companyId, plan.alternative, PASSAGES);
  return strength(second) > strength(first) ? { passages: second, query: plan.alternative } : { passages: first, query: plan.query };
}

/** The customer's earlier messages in the prompt (its user turns before the question), the last CONTEXT_MESSAGES. */
function earlierQuestions(messages: LlmMessage[]): string[] {
  const users = messages.filter((m) => m.role === 'user').map((m) => m.content);
  return users.slice(Math.max(0, users.length - 1 - CONTEXT_MESSAGES), -1);
}

/** How strongly the best passage answers: its evidence, else (passages without it) its coverage. */
const strength = (passages: LlmPassage[]) => Math.max(0, ...passages.map((p) => p.evidence ?? p.coverage ?? 0));

/** What the answer was decided on: the evidence score against the setting's bar, or the model's citations. */
function whyItAnswered(agent: AnswerAgent, response: LlmResponse): Partial<AnswerProvenance> {
  const why: Partial<AnswerProvenance> = response.grounded ? { grounded: true } : {};
  if (response.evidence === undefined || !Number.isFinite(response.evidence)) return why;
  const setting = agent.answerThreshold ?? DEFAULT_ANSWER_THRESHOLD;
  return { ...why, evidence: Math.min(1, Math.max(0, response.evidence)), answerThreshold: setting, evidenceNeeded: evidenceThreshold(setting) };
}

/** Characters of the prompt the provider was sent: the messages and the knowledge-base passages. */
const promptSize = (request: AnswerRequest, passages: LlmPassage[]) =>
  promptChars(request.messages) +
  passages.reduce((sum, p) => sum + p.title.length + p.text.length, 0) +
  (request.toolTranscript ?? []).reduce((sum, step) => sum + step.calls.reduce((n, c) => n + c.arguments.length, 0) + step.results.reduce((n, r) => n + r.content.length, 0), 0);

/**
 * What the answer is charged for. The company's endpoint cannot zero it (a report under the estimate from the
 * prompt and the answer is replaced by the estimate) nor cheapen it (the configured model's price, whatever model
 * it reports). The builtin provider is free: its report (no tokens) stands.
 */
function billingOf(deps: AnswerDeps, request: AnswerRequest, response: LlmResponse, prompt: number): BilledUsage {
  if (request.provider.free) return { model: response.model, ...response.usage, usageSource: 'reported' };
  const billed = billedUsage(request.model, response.usage, estimateUsage(prompt, response.text.length), deps.pricing);
  return response.usageEstimated ? { ...billed, usageSource: 'estimated' } : billed;
}

/** The knowledge-base passages the answer drew from, best first (passages that are not chunks are left out). */
export function sourcesOf(passages: LlmPassage[], used: number[] | undefined): AnswerProvenance['sources'] {
  const picked = used === undefined ? passages : used.map((i) => passages[i]).filter((p): p is LlmPassage => p !== undefined);
  return picked
    .filter((p) => p.documentId !== undefined && p.chunkIndex !== undefined)
    .slice(0, MAX_ANSWER_SOURCES)
    .map((p) => ({ documentId: p.documentId!, title: p.title.slice(0, 500), chunkIndex: p.chunkIndex!, score: Number.isFinite(p.score) ? p.score : 0 }));
}

async function completeWithRetries(
  deps: AnswerDeps,
  provider: LlmProvider,
  request: Parameters<LlmProvider['complete']>[0],
  onDelta: AnswerRequest['onDelta'],
) {
  for (let attempt = 0; ; attempt++) {
    try {
      return await provider.complete(onDelta ? { ...request, onDelta: (text) => onDelta(text, attempt) } : request);
    } catch (err) {
      const delay = deps.llmRetryDelaysMs[attempt];
      if (!isLlmError(err) || !err.retryable || delay === undefined) throw err;
      deps.logger.warn({ kind: err.kind, attempt: attempt + 1, retryInMs: delay }, 'LLM call failed; retrying');
      await sleep(delay);
    }
  }
}

/** How an internal note reads in a prompt: context from the team, never something to repeat to the customer. */
export const NOTE_PREFIX = 'Internal note from the support team (context for you; never quote it to the customer): ';

/** Turns of the conversation a prompt keeps before the question. */
export const HISTORY_MESSAGES = 20;

/** The text of a customer message among `events` ('' when it is not there). */
export function textOf(events: ConversationEvent[], messageId: string): string {
  const e = events.find((x) => x.type === 'MessageReceived' && x.data.messageId === messageId);
  return e?.type === 'MessageReceived' ? e.data.text : '';
}

/** System prompt, then the recent conversation as chat turns, ending with the unanswered customer messages. */
export function buildPrompt(agent: Pick<AnswerAgent, 'systemPrompt'>, events: ConversationEvent[], unanswered: string[], options: { notes?: boolean } = {}): LlmMessage[] {
  const turns: LlmMessage[] = [];
  for (const e of events) {
    if (e.type === 'MessageReceived' && !unanswered.includes(e.data.messageId)) turns.push({ role: 'user', content: e.data.text });
    else if (e.type === 'AgentReplied' || e.type === 'OperatorMessageSent' || e.type === 'OperatorMessageRecorded') turns.push({ role: 'assistant', content: e.data.text });
    // Internal notes only when the company chose to share them (PUT /api/settings/notes), marked as the team's.
    else if (e.type === 'NoteAdded' && options.notes) turns.push({ role: 'system', content: `${NOTE_PREFIX}${e.data.text}` });
  }
  const pending = unanswered.map((id) => textOf(events, id)).filter(Boolean);
  return [
    { role: 'system', content: agent.systemPrompt },
    ...turns.slice(-HISTORY_MESSAGES).filter((t) => t.content !== ''),
    { role: 'user', content: pending.join('\n') },
  ];
}

/** Events read per page, newest first. */
const PAGE = 64;
/** However long the conversation, a prompt never looks further back than this. */
const MAX_EVENTS_BACK = 1024;

/**
 * The tail of a conversation a reply needs: the unanswered customer messages and the turns before them, read
 * backwards in pages from the end of the stream and stopping as soon as both are found. Its cost depends on
 * the prompt's size, never on the conversation's length.
 */
export async function readRecentHistory(
  store: EventStore,
  stream: string,
  want: { unanswered: readonly string[]; turns: number },
): Promise<ConversationEvent[]> {
  const missing = new Set(want.unanswered);
  const newestFirst: ConversationEvent[] = [];
  let turns = 0;
  let before: bigint | undefined;
  while (newestFirst.length < MAX_EVENTS_BACK) {
    const page = await store.readStream(stream, { direction: 'backwards', maxCount: PAGE, ...(before !== undefined ? { fromRevision: before } : {}) });
    for (const recorded of page) {
      const e = toDomainEvent<ConversationEvent>(recorded);
      newestFirst.push(e);
      if (e.type === 'MessageReceived' && missing.has(e.data.messageId)) missing.delete(e.data.messageId);
      else if (isTurn(e)) turns++;
    }
    const oldest = page.at(-1);
    if (page.length < PAGE || !oldest || oldest.revision === 0n) break;
    if (missing.size === 0 && turns >= want.turns) break;
    before = oldest.revision - 1n;
  }
  return newestFirst.reverse();
}

const isTurn = (e: ConversationEvent) =>
  e.type === 'MessageReceived' || e.type === 'AgentReplied' || e.type === 'OperatorMessageSent' || e.type === 'OperatorMessageRecorded';

/**
 * Why the AI could not answer, in words a support team reads on the conversation ("The AI model could not be
 * reached (connection refused)"). The adapter's message names the base URL, addresses and socket error codes:
 * fine in the operator's log, never on a conversation, where every teammate (and its events' readers) sees it.
 */
export function plainLlmFailure(err: Pick<LlmError, 'kind' | 'message' | 'status'>): string {
  const http = err.status !== undefined ? ` (HTTP ${err.status})` : '';
  switch (err.kind) {
    case 'timeout':
      return 'The AI model did not answer in time (timeout)';
    case 'unreachable':
      return `The AI model could not be reached${socketCause(err.message)}`;
    case 'rate_limited':
      return /quota/i.test(err.message) ? "The AI model's quota is used up" : 'The AI model is rate limiting requests (too many requests)';
    case 'server_error':
      return `The AI model's service had an error${http}`;
    case 'auth':
      return "The AI model's API key was refused";
    case 'bad_response':
      return 'The AI model sent an answer that could not be read';
    case 'invalid_request':
      return /not allowed/i.test(err.message)
        ? `The AI model's address is not allowed${/loopback|private|link-local|metadata/i.test(err.message) ? ' (a loopback or private address)' : ''}`
        : /no base URL|could not be loaded/i.test(err.message)
          ? 'The AI model is not configured completely'
          : `The AI model refused the request${http}: check the model name`;
    case 'aborted':
      return 'The AI model call was cancelled';
  }
}

/** Node's socket error codes a connection fails with, in plain words. */
const SOCKET_CAUSES: [RegExp, string][] = [
  // The outbound guard refused the address the name resolved to (a name rebound to 127.0.0.1, a private network).
  [/ERR_SSRF_BLOCKED|loopback|private|link-local|metadata/i, 'its address is a loopback or private one, which the service does not call'],
  [/ECONNREFUSED/, 'connection refused'],
  [/ENOTFOUND|EAI_AGAIN/, 'its host name was not found'],
  [/ECONNRESET|socket hang up/i, 'the connection was cut'],
  [/ETIMEDOUT|ENETUNREACH|EHOSTUNREACH/, 'no route to its address'],
  [/certificate|CERT_|SSL|TLS/i, 'its TLS certificate was refused'],
];

function socketCause(message: string): string {
  const found = SOCKET_CAUSES.find(([pattern]) => pattern.test(message));
  return found ? ` (${found[1]})` : '';
}
