import { z } from 'zod';

/** Money is integer micro-dollars; $5.00 of free credits at sign-up. */
export const SIGNUP_CREDITS_MICROS = 5_000_000;

export const creditEvents = {
  CreditsGranted: z.object({
    amountMicros: z.number().int().positive(),
    reason: z.string().min(1).max(200),
    grantedBy: z.uuid().nullable(),
    at: z.iso.datetime(),
  }),
  CreditsConsumed: z.object({
    amountMicros: z.number().int().min(0),
    /** The model the company configured, whose price was charged (before issue 21: the model the endpoint reported). */
    model: z.string(),
    inputTokens: z.number().int().min(0),
    outputTokens: z.number().int().min(0),
    /**
     * Where the token counts come from: the endpoint's report, or the service's estimate from the prompt and the
     * answer when that came to more (an endpoint cannot zero its charge). Absent on charges recorded before.
     */
    usageSource: z.enum(['reported', 'estimated']).optional(),
    /** The conversation whose reply it paid for ('' when the answer was not a customer's: see playgroundSessionId). */
    conversationId: z.string(),
    /** Set when the answer was given in the agent playground (no conversation): the playground session. */
    playgroundSessionId: z.string().optional(),
    replyId: z.string(),
    /** Set when the call answered a replay evaluation (conversationId is then '': no customer's reply). */
    replayId: z.uuid().optional(),
    /** Set when the call answered or judged an agent test case (its run; conversationId is then ''). */
    testRunId: z.uuid().optional(),
    /** With testRunId: the call answered the case (absent: it judged it). */
    testAnswer: z.literal(true).optional(),
    at: z.iso.datetime(),
  }),
};
type Events = typeof creditEvents;
export type CreditEvent = { [K in keyof Events]: { type: K; data: z.infer<Events[K]> } }[keyof Events];
