import { z } from 'zod';
import { answerThresholdSchema } from './evidence.js';

/**
 * What produced an AI answer, recorded with it (AgentReplied.provenance, playground and replay answers):
 * the knowledge-base passages the answer drew from, how long the model took and what the answer cost.
 * The model and its token counts are recorded next to it. The customer never sees any of this.
 */
/**
 * Why an AI reply handed off when the answerer decided it itself (no confident answer) rather than the model
 * choosing to (its handoff tool, its handoff message): recorded on AgentReplied, so the "Needs human" queue and
 * analytics tell the two apart (conversations/state.ts).
 */
/** `experiment_holdout`: no answerer at all: the conversation is in an experiment's holdout, which goes straight to people. */
export const handoffCause = z.enum(['no_confident_answer', 'experiment_holdout']);
export type HandoffCause = z.infer<typeof handoffCause>;
/** The reason text such a handoff carries when the model gave none. */
export const NO_CONFIDENT_ANSWER_REASON = 'no confident answer';

export const answerSourceSchema = z.object({
  documentId: z.string().min(1).max(100),
  title: z.string().max(500),
  /** Which passage of the document (its chunks are numbered from 0 as indexed). */
  chunkIndex: z.number().int().min(0),
  /** The search score: only comparable within one answer's sources. */
  score: z.number(),
});
export type AnswerSource = z.infer<typeof answerSourceSchema>;

export const MAX_ANSWER_SOURCES = 20;

export const answerProvenanceSchema = z.object({
  sources: z.array(answerSourceSchema).max(MAX_ANSWER_SOURCES),
  /** Wall time of the model call, retries included. */
  latencyMs: z.number().int().min(0),
  /** What the answer is charged, at the configured model's price, in micro-dollars (0 for the builtin provider). */
  costMicros: z.number().int().min(0),
  /**
   * The token counts are the service's estimate (~4 characters per token): the provider reported none, or less
   * than the prompt and the answer come to (an endpoint cannot zero its charge). Charged as recorded.
   */
  usageEstimated: z.boolean(),
  /**
   * Why it answered (or handed off): the evidence the provider decided on (0..1, builtin provider: the learned
   * probability that the passage answers rightly, confidence.ts; on answers recorded before the learned decision,
   * the hand-set evidence score) and the agent's answerThreshold setting. Absent on answers recorded before they existed.
   */
  evidence: z.number().min(0).max(1).optional(),
  answerThreshold: answerThresholdSchema.optional(),
  /** The evidence the setting needed when the answer was decided (thresholds are retuned; this is the one used). */
  evidenceNeeded: z.number().min(0).max(1).optional(),
  /**
   * The model was asked for a grounded answer (OpenAI-compatible provider, passages offered): `sources` are the
   * passages it cited. Absent: not grounded (the builtin provider, no passages, or recorded before).
   */
  grounded: z.boolean().optional(),
});
export type AnswerProvenance = z.infer<typeof answerProvenanceSchema>;

/** A generated answer as the playground and replays record it: its text, the model and tokens behind it, and its provenance. */
export const generatedAnswerSchema = z.object({
  text: z.string().max(65_536),
  model: z.string().max(200),
  inputTokens: z.number().int().min(0),
  outputTokens: z.number().int().min(0),
  handoff: z.boolean(),
  provenance: answerProvenanceSchema,
});
export type GeneratedAnswerFields = z.infer<typeof generatedAnswerSchema>;
