import { randomUUID } from 'node:crypto';
import { loadAgent } from '../../commands/agents/streamReads.js';
import { chargeUsage } from '../../commands/credits/chargeUsage.js';
import { loadCreditBalance } from '../../commands/credits/streamReads.js';
import { deterministicId } from '../../commands/hashing.js';
import { loadLlmConfig } from '../../commands/llm/streamReads.js';
import { loadOwnPlayground, playgroundCommand, readPlaygroundEvents, type Teammate } from '../../commands/playground/playgroundSessions.js';
import type { CommandDeps } from '../../commands/deps.js';
import { DomainError } from '../../domain/errors.js';
import type { CompanyLlmConfig } from '../../domain/llm/state.js';
import { PLAYGROUND_LIMITS, type PlaygroundEvent } from '../../domain/playground/events.js';
import { playgroundTurns, type PlaygroundTurn } from '../../domain/playground/turns.js';
import { isLlmError, type LlmMessage, type LlmProvider } from '../../ports/llm.js';
import { AnswerStopped, generateAnswer, recordedFieldsOf, type AnswerDeps } from '../answers/answerGeneration.js';
import type { FairSlots } from '../../shared/fairness/fairSlots.js';
import { liveExecutor } from '../answers/actionLoop.js';
import { answerWithMockedActions, simulatedActions } from '../answers/mockedActions.js';
import { recordedPlaygroundExecutor } from './playgroundActionCalls.js';
import type { ActionDeps } from '../replies/replyDecisions.js';

/**
 * One playground question, answered while the teammate's request waits (docs/api/playground-and-replays.md says why not
 * a bus job): the agent's saved configuration, the company's LLM settings and knowledge base, and the session's
 * last turns, through the same generateAnswer as a customer's reply. The question and its outcome (answer or
 * failure) are recorded on the session's stream; the answer is charged by the credit-charges reactor.
 */

/** Question/answer pairs of the session put in the prompt, like a conversation's recent history. */
export const PLAYGROUND_HISTORY_TURNS = 10;

export interface PlaygroundDeps extends CommandDeps, Omit<AnswerDeps, 'logger'> {
  llmResolver(config: CompanyLlmConfig): LlmProvider;
  /** Makes live action calls (a session started `live`); absent, every session's calls are mocked. */
  actions?: ActionDeps;
  /** The company's share of the process's playground LLM calls. */
  slots: FairSlots;
}

export async function answerPlaygroundQuestion(
  deps: PlaygroundDeps,
  teammate: Teammate,
  sessionId: string,
  text: string,
  signal?: AbortSignal,
): Promise<PlaygroundTurn> {
  const session = await loadOwnPlayground(deps.eventStore, teammate.companyId, sessionId);
  const agent = await loadAgent(deps.eventStore, teammate.companyId, session.agentId);
  if (!agent) throw new DomainError('NOT_FOUND', 'The agent of this playground session no longer exists');
  const llmConfig = await loadLlmConfig(deps.eventStore, teammate.companyId);
  // As for a customer's reply: no paid LLM call without credits.
  if (llmConfig.provider !== 'builtin' && (await loadCreditBalance(deps.eventStore, teammate.companyId)) <= 0) {
    throw new DomainError('CREDITS_EXHAUSTED', 'The company is out of credits: top up to use a paid language model, or switch to the builtin provider');
  }
  // Beyond the company's share nothing is recorded: the teammate retries after Retry-After.
  const release = await deps.slots.acquire(teammate.companyId, 0);
  if (!release) throw new DomainError('RATE_LIMITED', 'Your company already has as many playground questions waiting for the model as it may; try again in a moment');
  const questionId = randomUUID();
  const now = () => deps.clock.now().toISOString();
  try {
    await playgroundCommand(deps, teammate, sessionId, { type: 'AskPlaygroundQuestion', role: teammate.role, questionId, text, by: `user:${teammate.userId}`, now: now() });
    // The newest events are enough for the history: each answered turn is 2 events, plus the questions in flight.
    const recent = await readPlaygroundEvents(deps.eventStore, sessionId, { newest: 2 * PLAYGROUND_HISTORY_TURNS + 2 * PLAYGROUND_LIMITS.pending + 1 });
    const question = text.trim();
    let answer;
    try {
      const request = {
        companyId: teammate.companyId,
        provider: deps.llmResolver(llmConfig),
        model: agent.model ?? llmConfig.model ?? 'builtin',
        agent,
        messages: playgroundPrompt(agent.systemPrompt, recent, questionId, question),
        question,
        ...(signal ? { signal } : {}),
      };
      const actions = await simulatedActions(deps.eventStore, teammate.companyId, agent.actionIds, llmConfig.provider === 'builtin');
      const answerId = deterministicId(`playground-answer:${questionId}`);
      const live =
        session.actions === 'live' && deps.actions
          ? { executor: recordedPlaygroundExecutor(deps, { ...teammate, sessionId, answerId }, liveExecutor(deps.actions.caller, deps.actions.secretBox)) }
          : {};
      answer =
        actions.length > 0
          ? await answerWithMockedActions({ ...deps, llmRetryDelaysMs: [] }, request, { actions, answerId, ...live })
          : await generateAnswer({ ...deps, llmRetryDelaysMs: [] }, request);
    } catch (err) {
      // The teammate left mid-answer: the call was made all the same, and is charged on its estimated usage.
      if (err instanceof AnswerStopped && llmConfig.provider !== 'builtin') {
        await chargeUsage(deps, {
          companyId: teammate.companyId,
          playgroundSessionId: sessionId,
          replyId: deterministicId(`playground-answer:${questionId}`),
          model: err.model,
          ...err.usage,
          usageSource: 'estimated',
        });
      }
      const reason = signal?.aborted
        ? 'the teammate left before the answer came'
        : isLlmError(err)
          ? `the language model failed (${err.kind}): ${err.message}`
          : 'the language model failed';
      if (!isLlmError(err)) deps.logger.error({ err, sessionId }, 'playground answer failed');
      await playgroundCommand(deps, teammate, sessionId, { type: 'RecordPlaygroundFailure', questionId, reason, now: now() });
      throw new DomainError('LLM_ERROR', reason);
    }
    const recorded = recordedFieldsOf(answer);
    const answerId = deterministicId(`playground-answer:${questionId}`);
    const answeredAt = now();
    await playgroundCommand(deps, teammate, sessionId, { type: 'RecordPlaygroundAnswer', questionId, answerId, ...recorded, now: answeredAt });
    return {
      question: { id: questionId, text: question, at: recent.find((e) => e.type === 'PlaygroundQuestionAsked' && e.data.questionId === questionId)?.data.at ?? answeredAt },
      answer: { id: answerId, ...recorded, at: answeredAt },
      failure: null,
    };
  } finally {
    release();
  }
}

/** System prompt, the session's last answered turns, then the question (a failed or pending question is left out). */
export function playgroundPrompt(systemPrompt: string, events: PlaygroundEvent[], questionId: string, question: string): LlmMessage[] {
  const before: PlaygroundEvent[] = [];
  for (const e of events) {
    if (e.type === 'PlaygroundQuestionAsked' && e.data.questionId === questionId) break;
    before.push(e);
  }
  const history = playgroundTurns(before)
    .filter((t) => t.answer !== null && t.answer.text !== '')
    .slice(-PLAYGROUND_HISTORY_TURNS)
    .flatMap((t): LlmMessage[] => [
      { role: 'user', content: t.question.text },
      { role: 'assistant', content: t.answer!.text },
    ]);
  return [{ role: 'system', content: systemPrompt }, ...history, { role: 'user', content: question }];
}
