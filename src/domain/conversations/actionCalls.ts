import { z } from 'zod';
import { actionMode } from '../actions/definition.js';
import { deterministicId } from '../ids.js';

/**
 * Action calls, recorded on the conversation they answer (one call = one `callId`). The life of a call:
 *
 *   ActionCallRequested ─┬─ auto ──────────────────────────────────────────────┐
 *                        ├─ confirm → ActionConfirmationAsked ─┬─ ActionCallConfirmed (customer's yes) ─┤
 *                        │                                     └─ ActionCallDeclined (no / silence)     │
 *                        └─ approve → ActionApprovalRequested ─┬─ ActionCallApproved (teammate) ────────┤
 *                                                              ├─ ActionCallRefused (teammate)          │
 *                                                              └─ ActionApprovalExpired (→ handoff)     │
 *                                 ActionCallStarted (attempt recorded before the HTTP call) ◄───────────┘
 *                                 └─ ActionCallSucceeded | ActionCallFailed
 *
 * A call refused before it was made (schema violation, unverified identity, unknown action) is `ActionCallRejected`.
 * Arguments are recorded redacted (identity values replaced by their source, long strings cut); responses are the
 * mapped, size-capped text the model read. No header, secret or raw response enters an event.
 */

const at = z.iso.datetime();
const callId = z.uuid();
export const ACTION_CALL_LIMITS = { error: 500, response: 8000, prompt: 2000, reason: 500 } as const;

const recordedArguments = z.record(z.string().max(64), z.union([z.string().max(2000), z.number(), z.boolean()]));

export const actionCallEvents = {
  ActionCallRequested: z.object({
    callId,
    /** The reply (AgentReplied.messageId to be) this call is made for. */
    replyId: z.uuid(),
    actionId: z.uuid(),
    actionName: z.string().max(64),
    mode: actionMode,
    arguments: recordedArguments,
    /** The agent version that asked for it (absent before versions). */
    agentVersion: z.number().int().min(1).optional(),
    at,
  }),
  ActionCallRejected: z.object({ callId, error: z.string().max(ACTION_CALL_LIMITS.error), at }),
  /** `confirm`: the agent restated what it will do; only an explicit yes in the customer's next turn runs it. */
  ActionConfirmationAsked: z.object({ callId, messageId: z.uuid(), prompt: z.string().max(ACTION_CALL_LIMITS.prompt), expiresAt: at, at }),
  ActionCallConfirmed: z.object({ callId, inMessage: z.uuid(), at }),
  /** The customer said no, said something else, or stayed silent until `expiresAt`. */
  ActionCallDeclined: z.object({ callId, why: z.enum(['no', 'other_reply', 'silence']), at }),
  /** `approve`: waiting for a teammate; the customer got `holdingReply` under `messageId`. */
  ActionApprovalRequested: z.object({ callId, messageId: z.uuid(), holdingReply: z.string().max(1000), approverRoles: z.array(z.string().max(20)).max(3).nullable(), expiresAt: at, at }),
  ActionCallApproved: z.object({ callId, by: z.string().max(100), at }),
  ActionCallRefused: z.object({ callId, by: z.string().max(100), reason: z.string().max(ACTION_CALL_LIMITS.reason).nullable(), at }),
  /** No teammate decided in time: the conversation goes to people. */
  ActionApprovalExpired: z.object({ callId, at }),
  /** Recorded before the HTTP call, so a job retried after a crash never makes a non-idempotent call twice. */
  ActionCallStarted: z.object({ callId, idempotencyKey: z.string().max(200), mocked: z.boolean(), at }),
  ActionCallSucceeded: z.object({
    callId,
    status: z.number().int().min(100).max(599).nullable(),
    durationMs: z.number().int().min(0),
    /** What the model read: the mapped response, capped. */
    response: z.string().max(ACTION_CALL_LIMITS.response),
    mocked: z.boolean(),
    at,
  }),
  ActionCallFailed: z.object({
    callId,
    status: z.number().int().min(100).max(599).nullable(),
    durationMs: z.number().int().min(0),
    /** In plain words, for the team: no address, header or stack. */
    error: z.string().max(ACTION_CALL_LIMITS.error),
    /** The call may have reached the endpoint (it was started but its outcome was lost): never retried blindly. */
    outcomeUnknown: z.boolean().optional(),
    at,
  }),
};
export type ActionCallEventType = keyof typeof actionCallEvents;

/**
 * The reply that tells the customer how a call a teammate decided went: the same id on every attempt, so a
 * redelivered or recovered job stores it once, and the read model of unfinished resumes knows when it is written.
 */
export const followUpReplyId = (callId: string) => deterministicId(`action-follow-up:${callId}`);
