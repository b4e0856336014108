import { loadCompanyActions } from '../../commands/actions/streamReads.js';
import { chargeUsage } from '../../commands/credits/chargeUsage.js';
import { handleCommand } from '../../commands/handleCommand.js';
import { DomainError } from '../../domain/errors.js';
import { CONFIRMATION_WINDOW_MINUTES, checkArguments } from '../../domain/actions/definition.js';
import { actionsOfAgent, type StoredAction } from '../../domain/actions/state.js';
import { confirmationAnswerOf, type ConfirmationReply } from '../../domain/conversations/actionCallDecisions.js';
import { customerIdentityOf } from '../../domain/conversations/customerIdentity.js';
import { conversationDecider, conversationStream, type ConversationCommand } from '../../domain/conversations/decider.js';
import type { ConversationEvent } from '../../domain/conversations/events.js';
import type { ConversationState } from '../../domain/conversations/state.js';
import type { LlmToolStep } from '../../ports/llm.js';
import { confirmationPrompt, liveExecutor, resultText, runActionLoop, type ActionExecutor, type CallSink, type RequestedCall } from '../answers/actionLoop.js';
import { generateAnswer, type GeneratedAnswer, type AnswerRequest } from '../answers/answerGeneration.js';
import { now, type AgentProfile, type CompanyLlm, type Outcome, type ReplyWorkerDeps } from './replyDecisions.js';

/**
 * A customer's answer through the company's actions (actionLoop.ts has the loop): every step is an event on the
 * conversation, the attempt before the HTTP call, so a job retried after a crash continues the answer from what
 * is recorded and never makes a started call again (it is recorded as failed, outcome unknown). A `confirm` call
 * asks the customer with a fixed sentence and runs on an explicit yes in their next message; an `approve` call
 * gives the holding reply and waits for a teammate.
 *
 * The call runs inside the reply job's turn (per company, per conversation) with its own timeout, so a slow
 * endpoint holds only its own company's slot, never another company's replies.
 */

/** Whether the answer goes through the action loop: actions to offer, or a confirmation waiting for this message. */
export const answersWithActions = (state: ConversationState, actions: StoredAction[]) => actions.length > 0 || state.pendingAction?.mode === 'confirm';

/** The actions the answer may call: none for the builtin provider, without an action caller, or for an agent without any. */
export async function actionsFor(deps: ReplyWorkerDeps, companyId: string, agent: AgentProfile, llm: CompanyLlm): Promise<StoredAction[]> {
  if (!deps.actions || llm.kind === 'builtin' || !agent.actionIds?.length) return [];
  return actionsOfAgent(await loadCompanyActions(deps.eventStore, companyId), agent.actionIds);
}

/** What an answer with actions is written for (the reply worker's Answering, as far as the loop needs it). */
export interface ActionAnswering {
  job: { companyId: string; conversationId: string };
  state: ConversationState;
  session: { id: string };
  events: ConversationEvent[];
  unanswered: string[];
  agent: AgentProfile;
  replyId: string;
  actions: StoredAction[];
}

const unavailable: ActionExecutor = async () => ({ ok: false, status: null, durationMs: 0, error: 'actions cannot be called here', mocked: false });

const OUTCOME_UNKNOWN = 'the service stopped during the call: it may have reached the endpoint, and is not made again';

export async function answerWithActions(deps: ReplyWorkerDeps, a: ActionAnswering, request: AnswerRequest): Promise<GeneratedAnswer | Outcome> {
  const sink = conversationSink(deps, a, deps.actions ? liveExecutor(deps.actions.caller, deps.actions.secretBox) : unavailable);
  const confirmed = await answerToPendingConfirmation(deps, a, sink);
  const seed = await seedOf(a, sink, confirmed);
  let passages: AnswerRequest['passages'];
  const end = await runActionLoop({
    actions: a.actions,
    identity: customerIdentityOf(a.state),
    replyId: a.replyId,
    sink,
    seed,
    ask: async (tools, toolTranscript) => {
      const answer = await generateAnswer(deps, { ...request, tools, toolTranscript, ...(passages ? { passages } : {}) });
      passages = answer.passages;
      return answer;
    },
  });
  if (end.kind === 'answer') return end.answer;
  try {
    await askFirst(deps, a, end.call, end.answer);
  } catch (err) {
    if (!(err instanceof DomainError && err.code === 'REPLY_DROPPED')) throw err;
    // A human took over or closed meanwhile: nothing is asked, and the rounds already spent are charged.
    await chargeDroppedRounds(deps, a, end.answer);
    return { result: 'dropped', reason: err.message };
  }
  return { result: 'replied', reason: end.call.action.mode === 'confirm' ? 'asked the customer to confirm an action' : 'waiting for a teammate to approve an action' };
}

/** The model rounds of an answer that was not stored: charged once, under the reply's id (its charge guard). */
export async function chargeDroppedRounds(deps: ReplyWorkerDeps, a: Pick<ActionAnswering, 'job' | 'replyId'>, answer: GeneratedAnswer) {
  const { billed } = answer;
  await chargeUsage(deps, { companyId: a.job.companyId, conversationId: a.job.conversationId, replyId: a.replyId, ...billed }).catch((err) =>
    deps.logger.error({ err, ...a.job, replyId: a.replyId }, 'the LLM usage of a dropped reply was not charged'),
  );
}

/** A confirm call: the customer is asked in a fixed sentence. An approve call: the holding reply, a teammate decides. */
async function askFirst(deps: ReplyWorkerDeps, a: ActionAnswering, call: RequestedCall, answer: GeneratedAnswer) {
  const at = deps.clock.now();
  const confirm = call.action.mode === 'confirm';
  const text = confirm ? confirmationPrompt(call) : call.action.holdingReply;
  const reply: ConfirmationReply = {
    messageId: a.replyId,
    sessionId: a.session.id,
    agentId: a.agent.agentId,
    text,
    inReplyTo: a.unanswered,
    // The reply carries every round's usage: its one charge covers them.
    model: answer.billed.model,
    inputTokens: answer.billed.inputTokens,
    outputTokens: answer.billed.outputTokens,
    ...(a.agent.version !== undefined ? { agentVersion: a.agent.version } : {}),
  };
  const minutes = confirm ? CONFIRMATION_WINDOW_MINUTES : call.action.approvalTimeoutMinutes;
  const expiresAt = new Date(at.getTime() + minutes * 60_000).toISOString();
  await run(deps, a, confirm
    ? { type: 'AskActionConfirmation', callId: call.callId, prompt: text, expiresAt, reply, now: at.toISOString() }
    : { type: 'AskActionApproval', callId: call.callId, approverRoles: call.action.approverRoles, expiresAt, reply, now: at.toISOString() });
}

const run = (deps: ReplyWorkerDeps, a: Pick<ActionAnswering, 'job'>, command: ConversationCommand) =>
  handleCommand(deps.eventStore, conversationStream(a.job.conversationId), conversationDecider, command, { metadata: { companyId: a.job.companyId, actor: 'ai-agent' } });

/**
 * Records each step on the conversation and makes the call. A call whose outcome an earlier attempt recorded is
 * not made again (its recorded result is read back); one that was started without an outcome is recorded as
 * failed with the outcome unknown.
 */
export function conversationSink(deps: ReplyWorkerDeps, a: Pick<ActionAnswering, 'job' | 'events' | 'agent' | 'replyId'>, executor: ActionExecutor): CallSink {
  const recorded = recordedOutcomes(a.events);
  return {
    async requested(call, rejection) {
      const { callId, action } = call;
      const { events } = await run(deps, a, {
        type: 'RequestActionCall',
        callId,
        replyId: a.replyId,
        actionId: action.actionId,
        actionName: action.name,
        mode: action.mode,
        arguments: call.recorded,
        ...(a.agent.version !== undefined ? { agentVersion: a.agent.version } : {}),
        ...(rejection !== undefined ? { rejection } : {}),
        now: now(deps),
      });
      const rejected = events.find((e) => e.type === 'ActionCallRejected');
      return rejection === undefined && rejected?.type === 'ActionCallRejected' ? rejected.data.error : null;
    },
    async execute(call) {
      const known = recorded.get(call.callId);
      if (known !== undefined) return known;
      const started = await run(deps, a, { type: 'StartActionCall', callId: call.callId, idempotencyKey: call.callId, mocked: false, now: now(deps) });
      if (started.events.length === 0) {
        await run(deps, a, { type: 'FailActionCall', callId: call.callId, status: null, durationMs: 0, error: OUTCOME_UNKNOWN, outcomeUnknown: true, now: now(deps) });
        return `The call failed: ${OUTCOME_UNKNOWN}. Tell the customer a teammate will check.`;
      }
      const result = await executor(call.action, call.args, call.callId);
      const text = resultText(call.action, result);
      const settle: ConversationCommand = result.ok
        ? { type: 'SucceedActionCall', callId: call.callId, status: result.status, durationMs: result.durationMs, response: text, mocked: result.mocked, now: now(deps) }
        : { type: 'FailActionCall', callId: call.callId, status: result.status, durationMs: result.durationMs, error: result.error, now: now(deps) };
      await run(deps, a, settle);
      return text;
    },
  };
}

/** The result each call recorded in the conversation's recent events has, as the model read it. */
function recordedOutcomes(events: ConversationEvent[]): Map<string, string> {
  const outcomes = new Map<string, string>();
  for (const e of events) {
    if (e.type === 'ActionCallSucceeded') outcomes.set(e.data.callId, e.data.response);
    else if (e.type === 'ActionCallFailed') outcomes.set(e.data.callId, `The call failed: ${e.data.error}.`);
    else if (e.type === 'ActionCallRejected') outcomes.set(e.data.callId, `Not done: ${e.data.error}.`);
  }
  return outcomes;
}

export type Requested = Extract<ConversationEvent, { type: 'ActionCallRequested' }>['data'];

/** A recorded call as the model made it, for the transcript (its arguments as recorded). */
const asToolCall = (r: Requested) => ({ id: r.callId, name: r.actionName, arguments: JSON.stringify(r.arguments) });

/**
 * Where the answer starts: the calls an earlier attempt of this reply recorded (a retried job continues after
 * them; one started without an outcome is settled as unknown, never made again), after the customer's answer to
 * a confirmation, if there was one.
 */
async function seedOf(a: ActionAnswering, sink: CallSink, confirmed: LlmToolStep | null): Promise<{ transcript: LlmToolStep[]; calls: number }> {
  const transcript: LlmToolStep[] = confirmed ? [confirmed] : [];
  const mine = a.events.flatMap((e) => (e.type === 'ActionCallRequested' && e.data.replyId === a.replyId ? [e.data] : []));
  const outcomes = recordedOutcomes(a.events);
  for (const r of mine) {
    const action = a.actions.find((x) => x.actionId === r.actionId);
    let content = outcomes.get(r.callId);
    if (content === undefined && action && a.state.startedCalls.includes(r.callId)) content = await sink.execute({ callId: r.callId, action, args: {}, recorded: r.arguments });
    transcript.push({ calls: [asToolCall(r)], results: [{ callId: r.callId, content: content ?? 'Not done: the service restarted before the call was made.' }] });
  }
  return { transcript, calls: mine.length + (confirmed ? 1 : 0) };
}

/**
 * The customer's next message after a confirmation question: an explicit yes runs the call (its result opens this
 * answer's transcript), a no declines it (the model is told), anything else declines it and is answered as usual.
 * A redelivered job finds the yes it already recorded and reads the call's recorded outcome instead of calling.
 */
async function answerToPendingConfirmation(deps: ReplyWorkerDeps, a: ActionAnswering, sink: CallSink): Promise<LlmToolStep | null> {
  const pending = a.state.pendingAction?.mode === 'confirm' ? a.state.pendingAction : null;
  const earlierYes = a.events.find((e) => e.type === 'ActionCallConfirmed' && a.unanswered.includes(e.data.inMessage));
  const callId = pending?.callId ?? (earlierYes?.type === 'ActionCallConfirmed' ? earlierYes.data.callId : null);
  if (callId === null) return null;
  const requested = a.events.find((e): e is Extract<ConversationEvent, { type: 'ActionCallRequested' }> => e.type === 'ActionCallRequested' && e.data.callId === callId)?.data;
  const lastMessage = a.unanswered.at(-1)!;
  if (pending) {
    const said = confirmationAnswerOf(a.unanswered.map((id) => textOfMessage(a.events, id)));
    if (said !== 'yes' || !requested) {
      await run(deps, a, { type: 'DeclineActionCall', callId, why: said === 'no' ? 'no' : 'other_reply', now: now(deps) });
      return said === 'no' && requested ? { calls: [asToolCall(requested)], results: [{ callId, content: 'Not done: the customer said no.' }] } : null;
    }
    await run(deps, a, { type: 'ConfirmActionCall', callId, inMessage: lastMessage, now: now(deps) });
  }
  if (!requested) return null;
  const action = a.actions.find((x) => x.actionId === requested.actionId);
  const content = action ? await executeRecorded(deps, a, sink, action, requested) : 'Not done: the action is no longer available.';
  return { calls: [asToolCall(requested)], results: [{ callId, content }] };
}

const CHANGED_WHILE_WAITING = 'the action was changed after the call was requested: ask again';

/**
 * The customer confirmed, or a teammate approved, the call as it was asked for: an edit since (another address,
 * method, parameters or headers) would run something nobody agreed to, so the call is not made and is asked again.
 */
const changedSince = (action: StoredAction, requested: Requested) => Date.parse(action.updatedAt) > Date.parse(requested.at);

/**
 * Runs a call from its recorded request: the model's arguments as recorded, the identity filled again from the
 * conversation (the record holds only where each identity value comes from).
 */
export async function executeRecorded(deps: ReplyWorkerDeps, a: Pick<ActionAnswering, 'job' | 'state'>, sink: CallSink, action: StoredAction, requested: Requested): Promise<string> {
  const given = Object.fromEntries(Object.entries(requested.arguments).filter(([k]) => !(k in action.identity)));
  const check = changedSince(action, requested) ? { ok: false as const, error: CHANGED_WHILE_WAITING } : checkArguments(action, given, customerIdentityOf(a.state));
  if (!check.ok) {
    // Not started: the attempt is recorded as a failure the team can read.
    await run(deps, a, { type: 'StartActionCall', callId: requested.callId, idempotencyKey: requested.callId, mocked: false, now: now(deps) });
    await run(deps, a, { type: 'FailActionCall', callId: requested.callId, status: null, durationMs: 0, error: `not made: ${check.error}`, now: now(deps) });
    return `Not done: ${check.error}.`;
  }
  return sink.execute({ callId: requested.callId, action, args: check.args, recorded: requested.arguments });
}

function textOfMessage(events: ConversationEvent[], messageId: string): string {
  const e = events.find((x) => x.type === 'MessageReceived' && x.data.messageId === messageId);
  return e?.type === 'MessageReceived' ? e.data.text : '';
}
