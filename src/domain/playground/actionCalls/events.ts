import { z } from 'zod';
import { ACTION_CALL_LIMITS, actionCallEvents } from '../../conversations/actionCalls.js';

/**
 * A live playground call: an owner or admin trying an agent in a `live` playground session made one of the
 * company's actions reach its endpoint. No customer conversation is written; each call has its own short stream
 * (`playgroundcall-<callId>`), so the action log and analytics show it, marked as a playground call, without the
 * session's stream growing. The attempt is recorded before the HTTP call, the outcome after, as on a conversation.
 */
const at = z.iso.datetime();
const callId = z.uuid();
/** What was called, as a conversation's call records it (arguments redacted the same way). */
const called = actionCallEvents.ActionCallRequested.pick({ actionId: true, actionName: true, mode: true, arguments: true, agentVersion: true }).shape;

export const playgroundActionCallEvents = {
  PlaygroundActionCallStarted: z.object({
    callId,
    companyId: z.uuid(),
    sessionId: z.uuid(),
    /** The playground answer (PlaygroundAnswered.answerId to be) it was made for. */
    answerId: z.uuid(),
    ...called,
    /** The teammate whose question it answered: `user:<id>`. */
    by: z.string().max(100),
    at,
  }),
  PlaygroundActionCallFinished: z.object({
    callId,
    ok: z.boolean(),
    status: z.number().int().min(100).max(599).nullable(),
    durationMs: z.number().int().min(0),
    /** What the model read (ok): the mapped response, capped. */
    response: z.string().max(ACTION_CALL_LIMITS.response).nullable(),
    /** Why it failed (not ok), in plain words. */
    error: z.string().max(ACTION_CALL_LIMITS.error).nullable(),
    at,
  }),
};
type Events = typeof playgroundActionCallEvents;
export type PlaygroundActionCallEvent = { [K in keyof Events]: { type: K; data: z.infer<Events[K]>; id?: string } }[keyof Events];
