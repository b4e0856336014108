import { z } from 'zod';

/** Bus subjects of replay evaluations: one job per replayed conversation, and the cancel fan-out. */
export const RUN_REPLAY = 'replays.run';
/** Broadcast to every processor: abort the replay's LLM calls in flight. */
export const REPLAY_CANCELLED = 'replays.cancelled';

export const runReplayJob = z.object({ replayId: z.uuid(), companyId: z.uuid(), conversationId: z.uuid() });
export type RunReplayJob = z.infer<typeof runReplayJob>;
export const replayCancelledNotice = z.object({ replayId: z.uuid() });

/** One job per agent test run: the replay worker answers its cases in the replay slots. */
export const RUN_AGENT_TESTS = 'agent-tests.run';
export const runAgentTestsJob = z.object({ runId: z.uuid(), companyId: z.uuid() });
export type RunAgentTestsJob = z.infer<typeof runAgentTestsJob>;
