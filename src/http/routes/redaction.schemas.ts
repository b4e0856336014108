import { z } from 'zod';
import { MAX_REDACTION_AGENT_OVERRIDES } from '../../domain/company/redaction/events.js';
import { bearerSecurity as security, errorResponses } from './schemas.js';

const agents = z
  .record(z.uuid(), z.boolean())
  .refine((a) => Object.keys(a).length <= MAX_REDACTION_AGENT_OVERRIDES, `at most ${MAX_REDACTION_AGENT_OVERRIDES} agents`)
  .describe("per-agent overrides of `enabled`: agent id → true (this agent redacts) or false (it does not)");

const redactionView = z.object({
  redaction: z.object({
    enabled: z
      .boolean()
      .describe("e-mail addresses, phone, payment card and IBAN numbers in customers' messages are replaced by placeholders before the model sees them, and put back in its answer"),
    agents,
  }),
});

export const getRedactionSchema = { tags: ['settings'], security, response: { 200: redactionView, ...errorResponses } };

export const setRedactionSchema = {
  tags: ['settings'],
  security,
  description:
    "Owners and admins: redaction before the model, for the company and per agent. When on, what the company's model receives (the reply prompt, handoff summaries) holds [EMAIL_1], [PHONE_1], [CARD_1], [IBAN_1] instead of the customer's values; the customer's answer gets them back.",
  body: z.strictObject({ enabled: z.boolean(), agents: agents.optional() }),
  response: { 200: redactionView, ...errorResponses },
};
