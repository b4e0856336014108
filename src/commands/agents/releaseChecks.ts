import { agentStream } from '../../domain/agents/decider.js';
import type { AgentConfig, AgentEvent } from '../../domain/agents/events.js';
import type { ReleaseCheckOutcome } from '../../domain/agents/releaseGate.js';
import { agentVersionConfigs } from '../../domain/agents/versions.js';
import type { Pricing } from '../../domain/credits/decider.js';
import { DEFAULT_ANSWER_THRESHOLD } from '../../domain/answers/evidence.js';
import { DomainError } from '../../domain/errors.js';
import type { ReplayDraft, ReplayStatus } from '../../domain/replays/events.js';
import { toDomainEvent } from '../handleCommand.js';
import type { CommandDeps } from '../deps.js';
import { estimateReplay, requestReplay, type ReplayEstimate } from '../replays/replays.js';
import { loadReplayStatus } from '../replays/queries.js';
import { loadAgent } from './queries.js';
import { loadTestRun, startTestRun, type TestRun } from './testRuns.js';

/**
 * A release check of one version: its test suite (a test run, builtin provider, free) and a replay of the
 * version over the agent's most recent conversations (the company's provider: free and deterministic on the
 * builtin one, charged on a paid model once its estimate is confirmed), both on the replay worker's slots.
 * The publish of that version names the check (releaseGate.ts). The check's id is its test run's id.
 */

type Who = { companyId: string; userId: string; agentId: string };
type Deps = CommandDeps & { pricing: Pricing };

const replayDraftOf = (agentId: string, c: AgentConfig): ReplayDraft => ({
  basedOnAgentId: agentId,
  systemPrompt: c.systemPrompt,
  model: c.model,
  temperature: c.temperature,
  useKnowledgeBase: c.useKnowledgeBase,
  handoffMessage: c.handoffMessage,
  answerThreshold: c.answerThreshold ?? DEFAULT_ANSWER_THRESHOLD,
  generalAnswers: c.generalAnswers ?? false,
});

async function versionConfig(deps: CommandDeps, input: Who & { version: number | null }): Promise<{ version: number; config: AgentConfig }> {
  const agent = await loadAgent(deps.eventStore, input.companyId, input.agentId);
  if (!agent) throw new DomainError('NOT_FOUND', 'Agent not found');
  const version = input.version ?? agent.draftVersion;
  const history = (await deps.eventStore.readStream(agentStream(input.agentId))).map((e) => toDomainEvent<AgentEvent>(e));
  const config = agentVersionConfigs(history).get(version);
  if (!config) throw new DomainError('NOT_FOUND', 'Version not found');
  return { version, config };
}

/** What the check's replay of `conversationIds` would answer and cost (nothing is charged). */
export async function estimateReleaseCheck(deps: Deps, input: Who & { version: number | null; conversationIds: string[] }): Promise<ReplayEstimate & { version: number }> {
  const { version, config } = await versionConfig(deps, input);
  const estimate = await estimateReplay(deps, { companyId: input.companyId, draft: replayDraftOf(input.agentId, config), conversationIds: input.conversationIds });
  return { ...estimate, version };
}

/**
 * Starts the check: the replay first (a paid one only within the confirmed cost, else 409 CONFLICT with the
 * estimate, as replays are), then the suite, which names the replay. Conversations without a customer turn
 * are left out; none left: the check is the suite alone.
 */
export async function startReleaseCheck(deps: Deps, input: Who & { version: number | null; conversationIds: string[]; confirmedCostMicros: number }) {
  const { version, config } = await versionConfig(deps, input);
  const draft = replayDraftOf(input.agentId, config);
  const estimate = input.conversationIds.length > 0 ? await estimateReplay(deps, { companyId: input.companyId, draft, conversationIds: input.conversationIds }) : null;
  let replayId: string | null = null;
  if (estimate && estimate.messages > 0) {
    const replay = await requestReplay(deps, { companyId: input.companyId, userId: input.userId, draft, conversationIds: input.conversationIds, confirmedCostMicros: input.confirmedCostMicros });
    replayId = replay.replayId;
  }
  const conversations = estimate?.conversations.filter((c) => c.turns > 0).length ?? 0;
  return startTestRun(deps, { ...input, version, release: { replayId, conversations } });
}

export type ReleaseCheck = { run: TestRun; replayStatus: ReplayStatus | null };

/**
 * The company's release check of the agent (strongly consistent), or null: missing, a plain test run, another
 * agent's or company's. `replayStatus: false` leaves the replay's stream unread (null): a reader that polls
 * takes the replay's status from its read model instead.
 */
export async function loadReleaseCheck(
  deps: Pick<CommandDeps, 'eventStore'>,
  companyId: string,
  agentId: string,
  checkId: string,
  options: { replayStatus: boolean } = { replayStatus: true },
): Promise<ReleaseCheck | null> {
  const run = await loadTestRun(deps, companyId, checkId);
  if (!run || !run.started.release || run.started.agentId !== agentId) return null;
  const replayId = run.started.release.replayId;
  return { run, replayStatus: replayId && options.replayStatus ? await loadReplayStatus(deps.eventStore, companyId, replayId) : null };
}

/** The check as the gate weighs it: finished once the suite is answered and the replay no longer runs. */
export function releaseOutcome(check: ReleaseCheck): ReleaseCheckOutcome {
  const { run, replayStatus } = check;
  return {
    releaseCheckId: run.started.runId,
    version: run.started.version,
    finished: run.finished !== null && replayStatus !== 'running',
    cases: run.started.cases,
    passed: Object.fromEntries(run.checked.map((c) => [c.caseId, c.passed])),
  };
}
