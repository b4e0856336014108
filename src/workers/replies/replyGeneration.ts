import { chargeUsage } from '../../commands/credits/chargeUsage.js';
import { loadCreditBalance } from '../../commands/credits/streamReads.js';
import { loadIntegration } from '../../commands/integrations/streamReads.js';
import { handleCommand, loadState } from '../../commands/handleCommand.js';
import { conversationDecider, conversationStream, type ExperimentJoin, type HandoffNotice } from '../../domain/conversations/decider.js';
import type { ConversationState } from '../../domain/conversations/state.js';
import type { ConversationEvent } from '../../domain/conversations/events.js';
import type { BilledUsage } from '../../domain/credits/decider.js';
import { DomainError } from '../../domain/errors.js';
import { isLlmError, MAX_HANDOFF_REASON, type LlmMessage } from '../../ports/llm.js';
import { AnswerStopped, generateAnswer, type AnswerRequest, type GeneratedAnswer, readRecentHistory, plainLlmFailure, buildPrompt, HISTORY_MESSAGES, textOf } from '../answers/answerGeneration.js';
import { loadNoteSharing } from '../../commands/settings/noteSharing.js';
import { loadRedaction } from '../../commands/settings/streamReads.js';
import { createRedactor, type Redactor } from '../../domain/company/redaction/redact.js';
import { redactsFor } from '../../domain/company/redaction/state.js';
import { actionsFor, answersWithActions, answerWithActions } from './replyActions.js';
import type { StoredAction } from '../../domain/actions/state.js';
import { webchatSubject, type GenerateReplyJob } from './replyJobs.js';
import { LATER_MESSAGE, now, replyIdOf, type AgentProfile, type CompanyLlm, type Outcome, type ReplyWorkerDeps, handBackIfDue, afterHours, withAfterHours } from './replyDecisions.js';
import { chooseArm, holdOut } from './replyExperiment.js';
import type { Bus } from '../../ports/bus.js';
import type { Logger } from '../../ports/logger.js';
import { pushFor, WEBCHAT_DELTA_MAX_CHARS, type WebchatPush } from '../../ports/webchatPush.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * One reply job per received message. Only the newest unanswered message of a burst generates, after
 * the burst window, and its reply answers every unanswered message together. The reply is appended
 * against the conversation as it was: a human taking over or a close meanwhile drops it.
 *
 * Per message it reads the conversation's cached state (only events appended since) and a bounded tail
 * for the prompt: its cost does not grow with the conversation's length.
 */
export async function generateReply(deps: ReplyWorkerDeps, job: GenerateReplyJob, typing = typingIndicator(deps, job)): Promise<Outcome> {
  let outcome: Outcome | undefined;
  try {
    outcome = await generateReplyOnce(deps, job, typing);
    return outcome;
  } finally {
    // A stored reply ends the typing where it is pushed, with the message (the web chat route); a job that hands
    // the conversation on (a later message) leaves it on; anything else (no answer, a failure) ends it here.
    const handedOn = outcome?.reason === LATER_MESSAGE;
    if (typing.started && outcome?.result !== 'replied' && !handedOn) await typing.stop();
  }
}

async function generateReplyOnce(deps: ReplyWorkerDeps, job: GenerateReplyJob, typing: TypingIndicator): Promise<Outcome> {
  const stream = conversationStream(job.conversationId);
  for (;;) {
    const { state } = await loadState(deps.eventStore, stream, conversationDecider);
    if (!state.unanswered.includes(job.messageId)) return { result: 'skipped', reason: 'already answered' };
    if (state.unanswered.at(-1) !== job.messageId) return { result: 'skipped', reason: LATER_MESSAGE };
    await typing.start(state);
    // The job waited out its message's burst window before its turn; this only catches clocks that disagree.
    const wait = state.lastCustomerMessageAt ? Date.parse(state.lastCustomerMessageAt) + deps.burstWindowMs - deps.clock.now().getTime() : 0;
    if (wait > 0) {
      await sleep(wait);
      continue;
    }
    const history = await readRecentHistory(deps.eventStore, stream, { unanswered: state.unanswered, turns: HISTORY_MESSAGES });
    return await answerMessages(deps, job, state, history);
  }
}

type Session = NonNullable<ConversationState['session']>;
type ConversationCommand = Parameters<typeof conversationDecider.decide>[0];

/** What one answer is written for: the conversation's active session, its unanswered messages, agent and model. */
interface Answering {
  job: GenerateReplyJob;
  state: ConversationState;
  session: Session;
  events: ConversationEvent[];
  unanswered: string[];
  agent: AgentProfile;
  llm: CompanyLlm;
  /** The experiment arm the reply is written in (the conversation joins it with its first answer); null: none. */
  experiment: ExperimentJoin | null;
  replyId: string;
  /** The company's actions this answer may call (none: it only talks). */
  actions: StoredAction[];
  /** Runs a command on the conversation as the AI agent. */
  command(c: ConversationCommand): Promise<unknown>;
  /** Leaves the unanswered messages to people (`handoff`: in the "Needs human" queue, until `backAt` outside business hours; `notice`: what the customer is told). */
  markUnanswered(reason: string, handoff: boolean, notice?: HandoffNotice, backAt?: string): Promise<unknown>;
}

async function answerMessages(deps: ReplyWorkerDeps, job: GenerateReplyJob, given: ConversationState, events: ConversationEvent[]): Promise<Outcome> {
  const state = await handBackIfDue(deps, job, given);
  const session = state.session;
  if (!session || session.state !== 'active') return { result: 'skipped', reason: `the AI session is ${session?.state ?? 'missing'}` };
  const unanswered = [...state.unanswered];
  const command = (c: ConversationCommand) =>
    handleCommand(deps.eventStore, conversationStream(job.conversationId), conversationDecider, c, { metadata: { companyId: job.companyId, actor: 'ai-agent' } });
  const markUnanswered = (reason: string, handoff: boolean, notice?: HandoffNotice, backAt?: string) =>
    command({ type: 'MarkUnanswered', messageIds: unanswered, reason, handoff, ...(notice ? { notice } : {}), ...(backAt ? { backAt } : {}), now: now(deps) });

  const ready = await agentAndModel(deps, job, state, { command, markUnanswered });
  if ('result' in ready) return ready;
  const { agent, join } = chooseArm(ready.agent, state, job.conversationId);
  const replyId = replyIdOf(job.messageId);
  if (join?.arm === 'holdout') return holdOut(deps, { job, sessionId: session.id, unanswered, replyId, agent, join, command });
  const actions = await actionsFor(deps, job.companyId, agent, ready.llm);
  const answering: Answering = { job, state, session, events, unanswered, llm: ready.llm, agent, experiment: join, replyId, actions, command, markUnanswered };
  const written = await writeAnswer(deps, answering);
  if ('result' in written) return written;
  return storeReply(deps, answering, written);
}

/**
 * The integration's active agent and the company's model, or why no answer is written: an integration deleted
 * or switched off drops the job; no active agent, or no credits for a paid model, leaves the messages to people.
 */
async function agentAndModel(
  deps: ReplyWorkerDeps,
  job: GenerateReplyJob,
  state: ConversationState,
  conversation: Pick<Answering, 'command' | 'markUnanswered'>,
): Promise<{ agent: AgentProfile; llm: CompanyLlm } | Outcome> {
  const integration = await loadIntegration(deps.eventStore, state.integrationId!);
  if (integration === null || !integration.active) {
    deps.logger.warn({ ...job, integrationId: state.integrationId }, 'reply job dropped: the integration was deleted or deactivated');
    return { result: 'dropped', reason: 'integration deleted or inactive' };
  }
  const agent = integration.agentId ? await deps.loadAgent(job.companyId, integration.agentId) : null;
  if (!agent || !agent.active) {
    await conversation.markUnanswered('no active AI agent is assigned to this integration', false);
    return { result: 'unanswered', reason: 'no active agent' };
  }
  const llm = await deps.loadLlm(job.companyId);
  if (llm.kind !== 'builtin') {
    if ((await loadCreditBalance(deps.eventStore, job.companyId)) <= 0) {
      // No LLM call without credits: the session waits for a human or a top-up.
      await conversation.command({ type: 'PauseSession', reason: 'credits_exhausted', by: null, now: now(deps) });
      await conversation.markUnanswered('the company is out of credits', false);
      return { result: 'unanswered', reason: 'credits exhausted' };
    }
  }
  return { agent, llm };
}

/** Calls the model (streaming to a web chat visitor); a takeover or the model's failure ends in an outcome instead. */
async function writeAnswer(deps: ReplyWorkerDeps, a: Answering): Promise<GeneratedAnswer | Outcome> {
  const { job, state, llm, agent } = a;
  const texts = a.unanswered.map((id) => textOf(a.events, id)).filter(Boolean);
  // A web chat visitor watches the answer being written; a platform customer gets one message, as always
  // (and the builtin provider answers at once: nothing to stream). An answer that may call actions is written in
  // rounds, and only its last one is the answer: it is sent whole.
  const withActions = answersWithActions(state, a.actions);
  // The company's own model sees placeholders for its customers' addresses and numbers when it asked for that;
  // the knowledge search (in this service) still reads the words as written.
  const redactor = llm.kind !== 'builtin' && redactsFor(await loadRedaction(deps.eventStore, job.companyId), agent.agentId) ? createRedactor() : null;
  const messages = redactPrompt(buildPrompt(agent, a.events, a.unanswered, { notes: (await loadNoteSharing(deps.eventStore, a.job.companyId)).shareWithAi }), redactor);
  // A streamed answer would show the visitor the placeholders before they are put back: sent whole instead.
  const redacted = (redactor?.count ?? 0) > 0;
  const stream =
    state.connectorType === 'webchat' && llm.kind !== 'builtin' && !withActions && !redacted ? createReplyStream({ bus: deps.bus, subject: webchatSubject(job.conversationId), verifiedUserId: state.verifiedVisitor?.userId ?? null, replyId: a.replyId, logger: deps.logger }) : null;
  const takeover = stream ? watchForTakeover(deps, job, a.session.id) : null;
  try {
    const request: AnswerRequest = {
      companyId: job.companyId,
      provider: llm.provider,
      model: agent.model ?? llm.model ?? 'builtin',
      agent,
      messages,
      question: texts.join('\n'),
      ...(stream && takeover ? { onDelta: stream.push, signal: takeover.signal } : {}),
    };
    const answer = withActions ? await answerWithActions(deps, a, request) : await generateAnswer(deps, request);
    await stream?.finish();
    return redacted && 'response' in answer ? restoreAnswer(answer, redactor!) : answer;
  } catch (err) {
    await stream?.cancel();
    if (err instanceof AnswerStopped) {
      // A human took the conversation while the model was still writing: the stream stopped, nothing is stored.
      // The call was made all the same: it is charged on its estimated usage.
      deps.logger.info({ ...job }, 'streamed reply stopped: the AI session was taken over');
      await chargeDropped(deps, job, llm, { model: err.model, ...err.usage, usageSource: 'estimated' }, a.replyId);
      return { result: 'dropped', reason: 'the AI session was taken over while answering' };
    }
    // Anything but the model's own failure (the knowledge search, the store) fails the job: it is redelivered,
    // and only after the last delivery are the messages marked unanswered with what went wrong.
    if (!isLlmError(err)) throw err;
    // The log keeps the adapter's words (address, error code) for the operator; the team reads plain words.
    const reason = plainLlmFailure(err);
    deps.logger.warn({ ...job, err }, 'LLM failed after retries: message left to a human');
    // Never silence: the customer reads the agent's handoff message, as when the model hands off itself (outside
    // business hours with when people are back).
    const after = await afterHours(deps, job.companyId, agent);
    await a.markUnanswered(reason, true, { messageId: a.replyId, agentId: agent.agentId, text: after ? withAfterHours(agent.handoffMessage, after) : agent.handoffMessage }, after?.backAt);
    return { result: 'unanswered', reason };
  } finally {
    takeover?.stop();
  }
}

/** Customer and earlier answer turns through the redactor (the system prompt is the company's own words). */
function redactPrompt(messages: LlmMessage[], redactor: Redactor | null): LlmMessage[] {
  if (!redactor) return messages;
  return messages.map((m) => (m.role === 'system' ? m : { ...m, content: redactor.redact(m.content) }));
}

/**
 * The model's answer with the customer's values back where it used their placeholders; a value is longer than
 * its placeholder, so the result is clipped to what the reply's event holds.
 */
function restoreAnswer(answer: GeneratedAnswer, redactor: Redactor): GeneratedAnswer {
  const { response } = answer;
  const reason = response.handoffReason ? { handoffReason: redactor.restore(response.handoffReason).slice(0, MAX_HANDOFF_REASON) } : {};
  return { ...answer, response: { ...response, text: redactor.restore(response.text).slice(0, MAX_REPLY_CHARS), ...reason } };
}

/** The longest reply text an AgentReplied event holds. */
const MAX_REPLY_CHARS = 65_536;

/** Appends the reply against the conversation as it was: a takeover or a close meanwhile drops it (and charges the call). */
async function storeReply(deps: ReplyWorkerDeps, a: Answering, answer: GeneratedAnswer): Promise<Outcome> {
  const { response, provenance, billed } = answer;
  // Outside business hours a handoff also says when people are back, and waits in the queue until then; so does
  // the answer to a customer who asked for a person (once: then their wait has its return time).
  const waitingForPeople = a.state.handoff.handoff?.reason === 'customer_request' && !a.state.handoff.handoff.backAt;
  const after = response.handoff || waitingForPeople ? await afterHours(deps, a.job.companyId, a.agent) : null;
  try {
    await a.command({
      type: 'AppendAgentReply',
      messageId: a.replyId,
      sessionId: a.session.id,
      agentId: a.agent.agentId,
      text: after ? withAfterHours(response.text, after) : response.text,
      inReplyTo: a.unanswered,
      // What it is charged for (the credit-charges reactor charges these): the configured model, and the
      // reported usage or the estimate when that is more.
      model: billed.model,
      inputTokens: billed.inputTokens,
      outputTokens: billed.outputTokens,
      handoff: response.handoff === true,
      ...(response.handoff && response.handoffReason ? { handoffReason: response.handoffReason } : {}),
      ...(response.handoff && response.handoffCause ? { handoffCause: response.handoffCause } : {}),
      provenance,
      ...(a.agent.version !== undefined ? { agentVersion: a.agent.version } : {}),
      ...(a.experiment ? { experiment: a.experiment } : {}),
      ...(after ? { backAt: after.backAt } : {}),
      now: now(deps),
    });
  } catch (err) {
    if (err instanceof DomainError && err.code === 'REPLY_DROPPED') {
      deps.logger.info({ ...a.job, reason: err.message }, 'reply dropped before sending');
      await chargeDropped(deps, a.job, a.llm, billed, a.replyId);
      return { result: 'dropped', reason: err.message };
    }
    throw err;
  }
  return { result: 'replied', reason: response.handoff ? 'handed off to a human' : 'answered' };
}

/**
 * A reply that is stored is charged by the credit-charges reactor, from its AgentReplied event (so a crash
 * cannot lose the charge). A dropped reply still cost an LLM call: it is charged here, once per reply id.
 */
async function chargeDropped(deps: ReplyWorkerDeps, job: GenerateReplyJob, llm: CompanyLlm, billed: BilledUsage, replyId: string) {
  if (llm.kind === 'builtin') return;
  await chargeUsage(deps, {
    companyId: job.companyId,
    conversationId: job.conversationId,
    replyId,
    model: billed.model,
    inputTokens: billed.inputTokens,
    outputTokens: billed.outputTokens,
    usageSource: billed.usageSource,
  }).catch((err) => deps.logger.error({ err, ...job, replyId }, 'the LLM usage of a dropped reply was not charged'));
}

// What a reply on its way shows and watches while it is written: the visitor's typing indicator, a takeover, the
// answer streamed to a web chat visitor as it is written.

/** How often a streamed answer checks that its AI session is still the active one. */
const TAKEOVER_CHECK_MS = 1000;

/**
 * While a reply streams to a visitor, a human taking over (pausing or closing the session) must stop it at
 * once rather than when the model is done. One cached state read per second per streaming reply.
 */
export function watchForTakeover(deps: ReplyWorkerDeps, job: GenerateReplyJob, sessionId: string): { signal: AbortSignal; stop(): void } {
  const controller = new AbortController();
  let checking = false;
  const timer = setInterval(() => {
    if (checking || controller.signal.aborted) return;
    checking = true;
    loadState(deps.eventStore, conversationStream(job.conversationId), conversationDecider)
      .then(({ state }) => {
        if (state.session?.id !== sessionId || state.session.state !== 'active') controller.abort();
      })
      .catch((err) => deps.logger.warn({ ...job, err }, 'checking the AI session during a streamed reply failed'))
      .finally(() => (checking = false));
  }, TAKEOVER_CHECK_MS);
  timer.unref();
  return { signal: controller.signal, stop: () => clearInterval(timer) };
}

export interface TypingIndicator {
  readonly started: boolean;
  start(state: ConversationState): Promise<void>;
  stop(): Promise<void>;
}

/** A web chat visitor sees "typing" while an active session's reply is on its way (best effort: never fails the job). */
export function typingIndicator(deps: ReplyWorkerDeps, job: GenerateReplyJob): TypingIndicator {
  let started = false;
  let verifiedUserId: string | null = null;
  const typing = (on: boolean) =>
    deps.bus.broadcast(webchatSubject(job.conversationId), pushFor({ type: 'typing', on }, verifiedUserId)).catch((err) => deps.logger.warn({ ...job, err }, 'typing notification lost'));
  return {
    get started() {
      return started;
    },
    async start(state) {
      if (started || state.connectorType !== 'webchat' || state.session?.state !== 'active') return;
      started = true;
      verifiedUserId = state.verifiedVisitor?.userId ?? null;
      await typing(true);
    },
    stop: () => typing(false),
  };
}

/**
 * Forwards a reply being generated to the web chat visitor as `delta` pushes on the conversation's subject.
 * Fragments are coalesced (at most one push per `intervalMs`, never one per token) and bounded (each push
 * at most WEBCHAT_DELTA_MAX_CHARS, the whole stream at most `maxChars`: past that the visitor waits for the
 * final message). A new attempt starts over at offset 0. Best effort: a lost push never fails the reply.
 */
export interface ReplyStream {
  /** One fragment of attempt `attempt`; O(fragment). */
  push(text: string, attempt: number): void;
  /** Sends what is buffered and waits until every push is on the bus (before the final reply is stored). */
  finish(): Promise<void>;
  /** Drops what is buffered and sends nothing more (the answer failed or was dropped). */
  cancel(): Promise<void>;
}

export interface ReplyStreamOptions {
  bus: Bus;
  subject: string;
  /** The user the conversation is verified for (null: nobody): only their sockets may receive the pieces. */
  verifiedUserId?: string | null;
  /** The id the final reply will have, so the widget replaces the partial with it. */
  replyId: string;
  logger: Logger;
  intervalMs?: number;
  maxChars?: number;
}

export const DELTA_INTERVAL_MS = 50;
export const MAX_STREAMED_CHARS = 32_768;

export function createReplyStream(options: ReplyStreamOptions): ReplyStream {
  const intervalMs = options.intervalMs ?? DELTA_INTERVAL_MS;
  const maxChars = options.maxChars ?? MAX_STREAMED_CHARS;
  let attempt = -1;
  /** Characters of this attempt already handed to the bus. */
  let sent = 0;
  let buffer: string[] = [];
  let buffered = 0;
  /** Leading whitespace is not shown (the final text is trimmed). */
  let started = false;
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  let chain: Promise<void> = Promise.resolve();

  const publish = (push: WebchatPush) => {
    chain = chain.then(() =>
      options.bus.broadcast(options.subject, pushFor(push, options.verifiedUserId ?? null)).catch((err) => options.logger.warn({ err, replyId: options.replyId }, 'streamed reply piece lost')),
    );
  };

  const flush = () => {
    clearTimeout(timer);
    timer = undefined;
    if (buffered === 0) return;
    const text = buffer.join('');
    buffer = [];
    buffered = 0;
    for (let at = 0; at < text.length; at += WEBCHAT_DELTA_MAX_CHARS) {
      const piece = text.slice(at, at + WEBCHAT_DELTA_MAX_CHARS);
      publish({ type: 'delta', id: options.replyId, offset: sent, text: piece });
      sent += piece.length;
    }
  };

  return {
    push(fragment, n) {
      if (stopped) return;
      if (n !== attempt) {
        // A retry: what the failed attempt showed is void, the next push starts at offset 0 again.
        attempt = n;
        clearTimeout(timer);
        timer = undefined;
        buffer = [];
        buffered = 0;
        sent = 0;
        started = false;
      }
      let text = fragment;
      if (!started) {
        text = text.trimStart();
        if (text === '') return;
        started = true;
      }
      const room = maxChars - sent - buffered;
      if (room <= 0) return;
      if (text.length > room) text = text.slice(0, room);
      buffer.push(text);
      buffered += text.length;
      timer ??= setTimeout(flush, intervalMs);
    },
    async finish() {
      if (!stopped) flush();
      stopped = true;
      await chain;
    },
    async cancel() {
      stopped = true;
      clearTimeout(timer);
      timer = undefined;
      buffer = [];
      await chain;
    },
  };
}
