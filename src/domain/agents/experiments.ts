import { createHash } from 'node:crypto';
import { z } from 'zod';

/**
 * An experiment answers an agent's customers with two versions at once (arms `a` and `b`), and optionally
 * hands a holdout share straight to people. Which arm a conversation gets is a pure function of the
 * experiment and the conversation id, so every process (and every retry) picks the same one without asking
 * anyone; the conversation records it the first time it is answered, and keeps it from then on.
 */
export const experimentArm = z.enum(['a', 'b']);
export type ExperimentArm = z.infer<typeof experimentArm>;
/** Where a conversation of an experiment goes: one of the two arms, or to people. */
export const experimentAssignment = z.enum(['a', 'b', 'holdout']);
export type ExperimentAssignment = z.infer<typeof experimentAssignment>;

/** The confidence levels an experiment may be judged at. */
export const CONFIDENCE_LEVELS = [0.8, 0.9, 0.95, 0.99] as const;
export const confidenceLevel = z.union(CONFIDENCE_LEVELS.map((l) => z.literal(l)) as unknown as [z.ZodLiteral<0.8>, z.ZodLiteral<0.9>, z.ZodLiteral<0.95>, z.ZodLiteral<0.99>]);
export const DEFAULT_CONFIDENCE_LEVEL = 0.95;
/** At most this share (percent) of the conversations is held out: an experiment is about the AI's answers. */
export const MAX_HOLDOUT_PERCENT = 50;
/** The handoff reason a holdout conversation carries (on the reply and in the "Needs human" queue). */
export const HOLDOUT_REASON = 'experiment holdout';

/** An arm's share is a whole percent of the AI-answered conversations (1–99: both arms get some). */
export const armShare = z.number().int().min(1).max(99);
export const holdoutPercent = z.number().int().min(0).max(MAX_HOLDOUT_PERCENT);

export interface ExperimentSplit {
  experimentId: string;
  /** Arm `a` first; the shares add up to 100. */
  arms: readonly { arm: ExperimentArm; share: number }[];
  /** Percent of all conversations handed to people (0–50). */
  holdout: number;
}

const TWO_32 = 2 ** 32;

/**
 * Where in [0, 1) a conversation falls for an experiment: the first 32 bits of
 * SHA-256("<experimentId>:<conversationId>") as an unsigned big-endian integer, divided by 2^32. SHA-256 spreads
 * any set of ids evenly, and salting with the experiment id gives every experiment its own, independent split
 * (the same conversations are not always the canary).
 */
export function experimentBucket(experimentId: string, conversationId: string): number {
  return createHash('sha256').update(`${experimentId}:${conversationId}`).digest().readUInt32BE(0) / TWO_32;
}

/**
 * The arm of a conversation: with u its bucket and h the holdout share, u < h goes to people; the rest is
 * stretched back over [0, 1) (v = (u − h) / (1 − h)) and v < share(a) answers with arm a, else arm b. So a
 * 90/10 split with a 10 % holdout sends 10 % to people, 81 % to a and 9 % to b.
 */
export function assignArm(split: ExperimentSplit, conversationId: string): ExperimentAssignment {
  const u = experimentBucket(split.experimentId, conversationId);
  const holdout = split.holdout / 100;
  if (u < holdout) return 'holdout';
  const v = (u - holdout) / (1 - holdout);
  const [first, second] = split.arms;
  return v < first!.share / 100 ? first!.arm : second!.arm;
}
