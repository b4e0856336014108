import { z } from 'zod';
import { generatedAnswerSchema } from '../answers/provenance.js';

/**
 * The agent playground: a teammate chats with an agent from the dashboard, with no platform and no customer.
 * One stream per session (`playground-<sessionId>`), never a conversation stream: nothing here is sent to a
 * customer, counted in analytics (built from conversation events) or shown in the inbox. Answers are charged
 * like replies (the credit-charges reactor, per answer id).
 *
 * A session holds at most PLAYGROUND_LIMITS.questions questions, so the stream stays short enough to read whole
 * (a GET, the prompt's history): a longer try starts a new session.
 */

export const PLAYGROUND_LIMITS = {
  /** Questions per session. */
  questions: 100,
  /** Like a web chat visitor's message (WEBCHAT_MAX_TEXT_LENGTH, 16 KiB). A literal: the dashboard checks its copy against the type. */
  text: 16_384,
  /** Questions tracked as waiting for their answer (the HTTP side allows fewer LLM calls at once per company). */
  pending: 8,
  reason: 500,
} as const;

const at = z.iso.datetime();
export const playgroundActions = z.enum(['mocked', 'live']);
export type PlaygroundActions = z.infer<typeof playgroundActions>;

export const playgroundEvents = {
  /** `actions`: whether the agent's action calls reach the company's endpoints (`live`) or get sample responses (absent: `mocked`). */
  PlaygroundStarted: z.object({ sessionId: z.uuid(), companyId: z.uuid(), agentId: z.uuid(), startedBy: z.string().max(100), actions: playgroundActions.optional(), at }),
  PlaygroundQuestionAsked: z.object({ questionId: z.uuid(), text: z.string().min(1).max(PLAYGROUND_LIMITS.text), by: z.string().max(100), at }),
  PlaygroundAnswered: generatedAnswerSchema.extend({ questionId: z.uuid(), answerId: z.uuid(), at }),
  /** The model failed (error, timeout, the teammate left): recorded so the session says why there is no answer. */
  PlaygroundAnswerFailed: z.object({ questionId: z.uuid(), reason: z.string().min(1).max(PLAYGROUND_LIMITS.reason), at }),
};
type Events = typeof playgroundEvents;
export type PlaygroundEvent = { [K in keyof Events]: { type: K; data: z.infer<Events[K]>; id?: string } }[keyof Events];
export type PlaygroundAnswer = z.infer<Events['PlaygroundAnswered']>;

