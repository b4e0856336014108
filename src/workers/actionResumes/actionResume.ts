import { loadIntegration } from '../../commands/integrations/streamReads.js';
import { loadState } from '../../commands/handleCommand.js';
import { handleCommand } from '../../commands/handleCommand.js';
import { conversationDecider, conversationStream } from '../../domain/conversations/decider.js';
import { followUpReplyId } from '../../domain/conversations/actionCalls.js';
import type { ConversationEvent } from '../../domain/conversations/events.js';
import type { ConversationState } from '../../domain/conversations/state.js';
import { DomainError } from '../../domain/errors.js';
import type { BusSubscription } from '../../ports/bus.js';
import { isLlmError } from '../../ports/llm.js';
import { liveExecutor } from '../answers/actionLoop.js';
import { RESUME_ACTION, resumeActionJob, type ResumeActionJob } from './actionResumeJobs.js';
import { generateAnswer, type GeneratedAnswer } from '../answers/answerGeneration.js';
import { createFairSlots } from '../../shared/fairness/fairSlots.js';
import { readRecentHistory } from '../answers/answerGeneration.js';
import { actionsFor, chargeDroppedRounds, conversationSink, executeRecorded, type Requested } from '../replies/replyActions.js';
import { now, type AgentProfile, type Outcome, type ReplyWorkerDeps } from '../replies/replyDecisions.js';
import { buildPrompt, HISTORY_MESSAGES } from '../answers/answerGeneration.js';

/**
 * An approve call a teammate decided (RESUME_ACTION, from the action-resume-jobs reactor): approved, the call is
 * made (recorded before, as every call) and the model tells the customer the result; refused, the customer is told
 * in a fixed sentence that it could not be done, and the conversation goes on. The follow-up answers the messages
 * the holding reply answered, under an id derived from the call, so a redelivered job stores it once.
 *
 * Its own slots, shared fairly between companies: a slow endpoint holds its own company's share only.
 */
export async function startActionResumes(deps: ReplyWorkerDeps): Promise<BusSubscription> {
  const concurrency = deps.concurrency ?? 8;
  const slots = createFairSlots({ total: concurrency, perCompany: deps.perCompanyConcurrency ?? Math.max(1, Math.floor((concurrency * 3) / 4)) });
  return deps.bus.subscribe<ResumeActionJob>(
    RESUME_ACTION,
    { durable: 'action-resumes', concurrency: concurrency * 4, maxDeliver: deps.maxDeliver ?? 5, backoffMs: deps.backoffMs ?? [1000, 5000, 15000] },
    async (message) => {
      const job = resumeActionJob.parse(message.data);
      const release = await slots.acquire(job.companyId, 60_000);
      if (!release) throw new Error('no slot for the company within a minute'); // redelivered later
      try {
        const outcome = await resumeActionCall(deps, job);
        deps.logger.info({ ...job, ...outcome, delivery: message.deliveryCount }, 'action resume job done');
      } finally {
        release();
      }
    },
  );
}

const fallback = (failed: boolean) => (failed ? 'Sorry, that could not be done. A teammate will follow up.' : 'That is done now.');
const REFUSED = 'Sorry, that could not be done: it was not approved. Is there anything else I can help with?';

export async function resumeActionCall(deps: ReplyWorkerDeps, job: ResumeActionJob): Promise<Outcome> {
  const stream = conversationStream(job.conversationId);
  const { state } = await loadState(deps.eventStore, stream, conversationDecider);
  const replyId = followUpReplyId(job.callId);
  if (state.replies.includes(replyId)) return { result: 'skipped', reason: 'already followed up' };
  if (state.session?.state !== 'active') return { result: 'skipped', reason: 'the conversation is with people' };
  const events = await readRecentHistory(deps.eventStore, stream, { unanswered: [], turns: HISTORY_MESSAGES });
  const call = callOf(events, job.callId);
  if (!call) return { result: 'skipped', reason: 'the call is not in the recent conversation' };
  const agent = await agentOf(deps, job, state);
  if (!agent) return { result: 'skipped', reason: 'no active agent' };
  const answering = { job, state, events, agent, replyId };
  const said = call.approved ? await resultAnswer(deps, answering, call.requested) : { text: REFUSED, answer: null };
  try {
    await handleCommand(deps.eventStore, stream, conversationDecider, {
      type: 'FollowUpActionCall',
      callId: job.callId,
      reply: {
        messageId: replyId,
        sessionId: state.session.id,
        agentId: agent.agentId,
        text: said.text,
        inReplyTo: call.inReplyTo,
        model: said.answer?.billed.model ?? 'none',
        inputTokens: said.answer?.billed.inputTokens ?? 0,
        outputTokens: said.answer?.billed.outputTokens ?? 0,
        ...(agent.version !== undefined ? { agentVersion: agent.version } : {}),
      },
      now: now(deps),
    }, { metadata: { companyId: job.companyId, actor: 'ai-agent' } });
  } catch (err) {
    if (!(err instanceof DomainError && err.code === 'REPLY_DROPPED')) throw err;
    if (said.answer) await chargeDroppedRounds(deps, { job, replyId }, said.answer);
    return { result: 'dropped', reason: err.message };
  }
  return { result: 'replied', reason: call.approved ? 'followed up an approved action' : 'told the customer an action was refused' };
}

/** The call's request, the teammate's decision and the messages its holding reply answered. */
function callOf(events: ConversationEvent[], callId: string): { requested: Requested; approved: boolean; inReplyTo: string[] } | null {
  let requested: Requested | undefined;
  let decided: boolean | undefined;
  let heldIn: string | undefined;
  for (const e of events) {
    if (e.type === 'ActionCallRequested' && e.data.callId === callId) requested = e.data;
    else if (e.type === 'ActionApprovalRequested' && e.data.callId === callId) heldIn = e.data.messageId;
    else if (e.type === 'ActionCallApproved' && e.data.callId === callId) decided = true;
    else if (e.type === 'ActionCallRefused' && e.data.callId === callId) decided = false;
  }
  const holding = events.find((e) => e.type === 'AgentReplied' && e.data.messageId === heldIn);
  const inReplyTo = holding?.type === 'AgentReplied' ? holding.data.inReplyTo : [];
  return requested && decided !== undefined && inReplyTo.length > 0 ? { requested, approved: decided, inReplyTo } : null;
}

async function agentOf(deps: ReplyWorkerDeps, job: ResumeActionJob, state: ConversationState): Promise<AgentProfile | null> {
  const integration = state.integrationId !== null ? await loadIntegration(deps.eventStore, state.integrationId) : null;
  const agent = integration?.agentId ? await deps.loadAgent(job.companyId, integration.agentId) : null;
  return agent?.active ? agent : null;
}

type Resuming = { job: ResumeActionJob; state: ConversationState; events: ConversationEvent[]; agent: AgentProfile; replyId: string };

/** Makes the approved call and lets the model say how it went; a model that fails leaves a plain sentence. */
async function resultAnswer(deps: ReplyWorkerDeps, r: Resuming, requested: Requested): Promise<{ text: string; answer: GeneratedAnswer | null }> {
  const llm = await deps.loadLlm(r.job.companyId);
  const action = (await actionsFor(deps, r.job.companyId, r.agent, llm)).find((a) => a.actionId === requested.actionId);
  if (!action || !deps.actions) return { text: 'Sorry, that could not be done: the action is no longer available.', answer: null };
  const sink = conversationSink(deps, { ...r, replyId: requested.replyId }, liveExecutor(deps.actions.caller, deps.actions.secretBox));
  const content = await executeRecorded(deps, r, sink, action, requested);
  const failed = content.startsWith('The call failed') || content.startsWith('Not done');
  try {
    const prompt = buildPrompt(r.agent, r.events, []).slice(0, -1); // no new customer message: the call's result is what is new
    const answer = await generateAnswer(deps, {
      companyId: r.job.companyId,
      provider: llm.provider,
      model: r.agent.model ?? llm.model ?? 'builtin',
      agent: { ...r.agent, useKnowledgeBase: false },
      messages: prompt,
      question: '',
      toolTranscript: [{ calls: [{ id: requested.callId, name: requested.actionName, arguments: JSON.stringify(requested.arguments) }], results: [{ callId: requested.callId, content }] }],
    });
    // A handoff here is no answer to a finished call: the plain sentence is sent (and the call charged all the same).
    const plain = !answer.response.handoff && !answer.response.toolCalls?.length && answer.response.text.trim() !== '';
    return { text: plain ? answer.response.text : fallback(failed), answer };
  } catch (err) {
    if (!isLlmError(err)) throw err;
    return { text: fallback(failed), answer: null };
  }
}
