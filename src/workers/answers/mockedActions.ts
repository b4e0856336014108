import { loadCompanyActions } from '../../commands/actions/streamReads.js';
import type { CustomerIdentity } from '../../domain/actions/definition.js';
import { actionsOfAgent, type StoredAction } from '../../domain/actions/state.js';
import type { EventStore } from '../../ports/eventStore.js';
import { confirmationPrompt, mockedExecutor, runActionLoop, unrecordedSink, type ActionExecutor } from './actionLoop.js';
import { generateAnswer, type AnswerDeps, type AnswerRequest, type GeneratedAnswer } from './answerGeneration.js';

/**
 * Answers that may call actions but must never reach a company's endpoint (replay evaluations, agent test runs, a
 * mocked playground; a live playground passes the live executor): the same loop as a customer's reply, every call answered by the action's sample response (or
 * a mock given per test case), nothing recorded on any conversation. A confirm or approve call ends the answer
 * with the question the customer would be asked (or the holding reply), as it would in a conversation.
 */

/** Who the customer is in a simulation: every identity source filled with an obvious stand-in. */
export const SIMULATED_IDENTITY: CustomerIdentity = { 'platform.clientId': 'simulated-customer', 'webchat.userId': 'simulated-visitor', 'webchat.email': 'visitor@example.com' };

/** The actions a draft or an agent names, for a provider that calls tools (none for the builtin one). */
export async function simulatedActions(eventStore: EventStore, companyId: string, actionIds: readonly string[] | undefined, builtin: boolean): Promise<StoredAction[]> {
  if (builtin || !actionIds?.length) return [];
  return actionsOfAgent(await loadCompanyActions(eventStore, companyId), actionIds);
}

export interface MockedAnswer extends GeneratedAnswer {
  /** The calls the answer made, each mocked. */
  calls: { name: string; mocked: boolean }[];
}

export async function answerWithMockedActions(
  deps: AnswerDeps,
  request: AnswerRequest,
  options: { actions: StoredAction[]; answerId: string; mocks?: Record<string, unknown>; executor?: ActionExecutor },
): Promise<MockedAnswer> {
  const calls: MockedAnswer['calls'] = [];
  let passages: AnswerRequest['passages'];
  const end = await runActionLoop({
    actions: options.actions,
    identity: SIMULATED_IDENTITY,
    replyId: options.answerId,
    sink: unrecordedSink(options.executor ?? mockedExecutor(options.mocks), calls),
    ask: async (tools, toolTranscript) => {
      const answer = await generateAnswer(deps, { ...request, tools, toolTranscript, ...(passages ? { passages } : {}) });
      passages = answer.passages;
      return answer;
    },
  });
  if (end.kind === 'answer') return { ...end.answer, calls };
  const text = end.call.action.mode === 'confirm' ? confirmationPrompt(end.call) : end.call.action.holdingReply;
  const { toolCalls: _calls, ...response } = end.answer.response;
  return { ...end.answer, response: { ...response, text }, calls };
}
