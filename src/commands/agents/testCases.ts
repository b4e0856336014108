import { randomUUID } from 'node:crypto';
import { agentTestsStream, testCasesDecider } from '../../domain/agents/testCases/decider.js';
import type { TestCaseBody } from '../../domain/agents/testCases/events.js';
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
