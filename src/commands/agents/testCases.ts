import { randomUUID } from 'node:crypto';
import { agentTestsStream, testCasesDecider } from '../../domain/agents/testCases/decider.js';
import type { TestCaseBody, TestExpectations } from '../../domain/agents/testCases/events.js';
import { proposeCase } from '../../domain/agents/testCases/fromConversation.js';
import { DomainError } from '../../domain/errors.js';
import { REPLAY_LIMITS } from '../../domain/replays/events.js';
import { readReplayTurns } from '../replays/replayPlan.js';
import { expectOwnConversation } from '../replays/replays.js';
import { handleCommand } from '../handleCommand.js';
import type { CommandDeps } from '../deps.js';

/** Create, replace and remove an agent's test cases (`agenttests-<agentId>`); the caller has checked the agent is the company's. */

type Who = { companyId: string; userId: string; agentId: string };
const metadataOf = (input: Who) => ({ companyId: input.companyId, actor: `user:${input.userId}` });

export async function saveTestCase(deps: CommandDeps, input: Who & { caseId: string | null; body: TestCaseBody }) {
  const caseId = input.caseId ?? randomUUID();
  const result = await handleCommand(
    deps.eventStore,
    agentTestsStream(input.agentId),
    testCasesDecider,
    { type: 'SaveTestCase', caseId, agentId: input.agentId, companyId: input.companyId, body: input.body, create: input.caseId === null, by: `user:${input.userId}`, now: deps.clock.now().toISOString() },
    { metadata: metadataOf(input) },
  );
  return { ...result, caseId };
}

export async function removeTestCase(deps: CommandDeps, input: Who & { caseId: string }) {
  return handleCommand(
    deps.eventStore,
    agentTestsStream(input.agentId),
    testCasesDecider,
    { type: 'RemoveTestCase', caseId: input.caseId, companyId: input.companyId, by: `user:${input.userId}`, now: deps.clock.now().toISOString() },
    { metadata: metadataOf(input) },
  );
}

/**
 * A case made in one step from one of the company's conversations (another company's: NOT_FOUND): its customer
 * turns, and the answer a person gave or the AI's accepted answer as the reference (proposeCase). The
 * conversation is read backwards, bounded (readReplayTurns), whatever its length.
 */
export async function caseFromConversation(
  deps: CommandDeps,
  input: Who & { conversationId: string; name: string | null; required: boolean; expect: TestExpectations | null },
) {
  await expectOwnConversation(deps, input.companyId, input.conversationId);
  const { turns } = await readReplayTurns(deps.eventStore, input.conversationId, { maxTurns: REPLAY_LIMITS.turnsPerConversation });
  const proposed = proposeCase(input.conversationId, turns);
  if (proposed.turns.length === 0) throw new DomainError('VALIDATION_ERROR', 'conversationId: the conversation has no customer message to test with');
  const name = input.name ?? `From conversation: ${proposed.turns.at(-1)!.slice(0, 150)}`;
  const body: TestCaseBody = { name, turns: proposed.turns, expect: input.expect ?? proposed.expect, required: input.required, ...(proposed.reference ? { reference: proposed.reference } : {}) };
  return saveTestCase(deps, { ...input, caseId: null, body });
}
