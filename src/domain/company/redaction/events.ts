import { z } from 'zod';

/**
 * The company's redaction before the model (redact.ts): when on, addresses, phone, card and IBAN numbers in its
 * customers' words are replaced by placeholders before any text reaches its model. `agents` overrides the
 * company's choice for single agents (on for one agent only, or off for one). Its own stream per company.
 */
export const MAX_REDACTION_AGENT_OVERRIDES = 200;

export const redactionEvents = {
  RedactionConfigured: z.object({
    enabled: z.boolean(),
    agents: z.record(z.uuid(), z.boolean()).refine((a) => Object.keys(a).length <= MAX_REDACTION_AGENT_OVERRIDES),
    by: z.string().max(100),
    at: z.iso.datetime(),
  }),
};
type Events = typeof redactionEvents;
export type RedactionEvent = { [K in keyof Events]: { type: K; data: z.infer<Events[K]> } }[keyof Events];
