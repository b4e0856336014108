import { z } from 'zod';
import { AGENT_LIMITS } from '../agents/events.js';
import { answerThresholdSchema } from '../answers/evidence.js';
import { answerProvenanceSchema, generatedAnswerSchema } from '../answers/provenance.js';

/**
 * A replay evaluation: a draft agent configuration answers past customer messages again, next to what was
 * recorded. Its own stream (`replay-<id>`); nothing of it touches a conversation or reaches a customer.
 */
export const REPLAY_LIMITS = {
  /** Conversations in one replay. */
  conversations: 20,
  /** Customer turns replayed per conversation: its last ones (a turn = the messages one reply answered together). */
  turnsPerConversation: 50,
  /** Customer text kept per replayed turn (the prompt uses the full text). */
  customerText: 4_000,
  recordedText: 8_000,
} as const;

export const replayDraftSchema = z.object({
  /** The agent the draft started from (null: written from scratch). */
  basedOnAgentId: z.uuid().nullable(),
  systemPrompt: z.string().min(1).max(AGENT_LIMITS.systemPrompt),
  /** null: the model of the company's LLM configuration. */
  model: z.string().min(1).max(AGENT_LIMITS.model).nullable(),
  temperature: z.number().min(0).max(2),
  useKnowledgeBase: z.boolean(),
  handoffMessage: z.string().min(1).max(AGENT_LIMITS.handoffMessage),
  /**
   * The answer setting to replay with (builtin provider: the evidence it needs), so past conversations show
   * how another setting would have answered. Absent (replays requested before it existed): DEFAULT_ANSWER_THRESHOLD.
   */
  answerThreshold: answerThresholdSchema.optional(),
  /** Whether a grounded model may answer citing no passage. Absent: false. */
  generalAnswers: z.boolean().optional(),
  /** The actions the draft may call (its agent's); a replay answers them with their sample responses, never the endpoint. */
  actionIds: z.array(z.uuid()).max(20).optional(),
});
export type ReplayDraft = z.infer<typeof replayDraftSchema>;

/** What actually happened to the replayed customer turn. */
export const recordedAnswerSchema = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('agent'),
    messageId: z.uuid(),
    text: z.string().max(REPLAY_LIMITS.recordedText),
    model: z.string().max(200),
    inputTokens: z.number().int().min(0),
    outputTokens: z.number().int().min(0),
    handoff: z.boolean(),
    provenance: answerProvenanceSchema.optional(),
  }),
  z.object({ kind: z.literal('operator'), text: z.string().max(REPLAY_LIMITS.recordedText) }),
  z.object({ kind: z.literal('unanswered'), reason: z.string().max(500) }),
  /** Nothing answered it (yet) when the replay was requested. */
  z.object({ kind: z.literal('none') }),
]);
export type RecordedAnswer = z.infer<typeof recordedAnswerSchema>;

/** What the draft answered. */
export const draftAnswerSchema = z.discriminatedUnion('status', [
  generatedAnswerSchema.extend({ status: z.literal('answered') }),
  z.object({ status: z.literal('failed'), error: z.string().max(500) }),
]);
export type DraftAnswer = z.infer<typeof draftAnswerSchema>;

export const replayConversationSchema = z.object({
  conversationId: z.uuid(),
  /** The conversation's revision when the replay was requested: later events are never replayed nor read. */
  upToRevision: z.string().regex(/^\d{1,19}$/),
  /** Customer turns replayed (its last ones up to upToRevision). */
  turns: z.number().int().min(0).max(REPLAY_LIMITS.turnsPerConversation),
});
export type ReplayConversation = z.infer<typeof replayConversationSchema>;

export const replayFailureReason = z.enum(['credits_exhausted', 'job_failed']);

const at = z.iso.datetime();

export const replayEvents = {
  ReplayRequested: z.object({
    replayId: z.uuid(),
    companyId: z.uuid(),
    requestedBy: z.string().max(100).nullable(),
    draft: replayDraftSchema,
    /** The provider the estimate priced (the run uses the company's configuration at the time). */
    llm: z.object({ kind: z.enum(['builtin', 'openai']), model: z.string().max(200) }),
    conversations: z.array(replayConversationSchema).min(1).max(REPLAY_LIMITS.conversations),
    total: z.number().int().min(1).max(REPLAY_LIMITS.conversations * REPLAY_LIMITS.turnsPerConversation),
    estimatedCostMicros: z.number().int().min(0),
    /** Started under an Idempotency-Key: the request's hash, so the key sent again with another request is refused. */
    requestHash: z.string().regex(/^[0-9a-f]{64}$/).optional(),
    at,
  }),
  ReplayAnswerRecorded: z.object({
    conversationId: z.uuid(),
    /** The turn's place in its conversation's replayed turns, from 0. */
    turn: z.number().int().min(0).max(REPLAY_LIMITS.turnsPerConversation - 1),
    messageIds: z.array(z.uuid()).min(1).max(100),
    customerText: z.string().max(REPLAY_LIMITS.customerText),
    customerAt: at,
    recorded: recordedAnswerSchema,
    draft: draftAnswerSchema,
    at,
  }),
  ReplayFailed: z.object({ reason: replayFailureReason, message: z.string().max(500), at }),
  ReplayCompleted: z.object({ at }),
  ReplayCancelled: z.object({ by: z.string().max(100).nullable(), at }),
};
type Events = typeof replayEvents;
export type ReplayEvent = { [K in keyof Events]: { type: K; data: z.infer<Events[K]>; id?: string } }[keyof Events];
export type ReplayStatus = 'running' | 'completed' | 'cancelled' | 'failed';
