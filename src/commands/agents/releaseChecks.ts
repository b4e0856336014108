import type { AgentConfig } from '../../domain/agents/events.js';
import type { ReleaseCheckOutcome } from '../../domain/agents/releaseGate.js';
import type { Pricing } from '../../domain/credits/decider.js';
import { DEFAULT_ANSWER_THRESHOLD } from '../../domain/answers/evidence.js';
import type { ReplayDraft, ReplayStatus } from '../../domain/replays/events.js';
import type { CommandDeps } from '../deps.js';
import { firstEventOf, idForKey, startOnce, type IdempotencyKey } from '../idempotentStart.js';
import { agentTestRunStream } from '../../domain/agents/testRuns/decider.js';
import { confirmCost, estimateReplay, requestReplay, type ReplayEstimate } from '../replays/replays.js';
import { loadReplayStatus } from '../replays/streamReads.js';
import { estimateTestRun, loadTestRun, startTestRun, versionConfig, type TestRun, type TestRunEstimate } from './testRuns.js';

/**
 * A release check of one version: its test suite (a test run) and a replay of the version over the agent's
 * most recent conversations, both answered by the version's model (free and deterministic on the builtin
 * provider, charged on a paid model once their estimate is confirmed), both on the replay worker's slots.
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

/** What the check's replay of `conversationIds` and its suite would answer and cost (nothing is charged). */
export async function estimateReleaseCheck(deps: Deps, input: Who & { version: number | null; conversationIds: string[] }): Promise<ReplayEstimate & { version: number; suite: TestRunEstimate }> {
  const { version, config } = await versionConfig(deps, input);
  const suite = await estimateTestRun(deps, { ...input, version });
  const estimate = await estimateReplay(deps, { companyId: input.companyId, draft: replayDraftOf(input.agentId, config), conversationIds: input.conversationIds });
  return { ...estimate, version, suite };
}

/**
 * Starts the check once its cost is confirmed (the replay's and the suite's answers together: a paid one
 * only within the confirmed cost, else 409 CONFLICT with the estimate, as replays are): the replay first, then
 * the suite, which names the replay. Conversations without a customer turn are left out; none left: the check
 * is the suite alone.
 */
type CheckRequest = Who & { version: number | null; conversationIds: string[]; confirmedCostMicros: number };

/**
 * Under an idempotency key the key names the check's run and its replay (idempotentStart.ts): sent again it answers
 * with the first check; after a crash between the two, the replay already started is the check's.
 */
export async function startReleaseCheck(deps: Deps, input: CheckRequest & { idempotencyKey?: IdempotencyKey }) {
  const key = input.idempotencyKey;
  if (!key) return startCheck(deps, input);
  const runId = idForKey(input.companyId, 'release-check', key.key);
  const repeated = await startOnce(key, () => firstEventOf(deps, agentTestRunStream(runId)), () => startCheck(deps, input, { key, runId }));
  return { runId, repeated };
}

async function startCheck(deps: Deps, input: CheckRequest, keyed?: { key: IdempotencyKey; runId: string }) {
  const { version, config } = await versionConfig(deps, input);
  const draft = replayDraftOf(input.agentId, config);
  const suite = await estimateTestRun(deps, { ...input, version });
  const estimate = input.conversationIds.length > 0 ? await estimateReplay(deps, { companyId: input.companyId, draft, conversationIds: input.conversationIds }) : null;
  confirmCost({ costMicros: suite.costMicros + (estimate?.costMicros ?? 0), messages: suite.messages + (estimate?.messages ?? 0) }, input.confirmedCostMicros);
  let replayId: string | null = null;
  if (estimate && estimate.messages > 0) {
    const confirmedCostMicros = input.confirmedCostMicros - suite.costMicros;
    const replay = await requestReplay(deps, {
      companyId: input.companyId,
      userId: input.userId,
      draft,
      conversationIds: input.conversationIds,
      confirmedCostMicros,
      ...(keyed ? { idempotencyKey: keyed.key, keyPart: 'replay' } : {}),
    });
    replayId = replay.replayId;
  }
  const conversations = estimate?.conversations.filter((c) => c.turns > 0).length ?? 0;
  const run = { ...input, version, confirmedCostMicros: suite.costMicros, release: { replayId, conversations } };
  return startTestRun(deps, keyed ? { ...run, idempotencyKey: keyed.key, runId: keyed.runId } : run);
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

/**
 * The check as the gate weighs it: finished once the suite is answered (or stopped) and the replay no longer
 * runs. A case a stopped suite left unanswered (the credits ran out) did not pass: a required one fails.
 */
export function releaseOutcome(check: ReleaseCheck): ReleaseCheckOutcome {
  const { run, replayStatus } = check;
  const unanswered = run.stopped ? run.started.cases.map((c) => [c.caseId, false] as const) : [];
  return {
    releaseCheckId: run.started.runId,
    version: run.started.version,
    finished: (run.finished !== null || run.stopped !== null) && replayStatus !== 'running',
    cases: run.started.cases,
    passed: Object.fromEntries([...unanswered, ...run.checked.map((c) => [c.caseId, c.passed] as const)]),
  };
}
