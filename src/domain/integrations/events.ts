import { z } from 'zod';

export const connectorType = z.enum(['msgplatform', 'webchat']);
export type ConnectorType = z.infer<typeof connectorType>;

/** Longest web-chat greeting, in characters. */
export const WEBCHAT_GREETING_MAX_LENGTH = 500;

/** Secrets are stored sealed (AES-256-GCM, `v1:` envelope) in events; never in plain text. */
const sealed = z.string().startsWith('v1:').max(4096);

/**
 * The satisfaction survey after a close (CSAT): off by default. `skipWithoutCustomerReply`: no survey for a
 * conversation resolved without the customer writing after the first answer (typically closed for inactivity).
 */
export const csatSettings = z.object({ enabled: z.boolean(), skipWithoutCustomerReply: z.boolean() });
export type CsatSettings = z.infer<typeof csatSettings>;
export const DEFAULT_CSAT_SETTINGS: CsatSettings = { enabled: false, skipWithoutCustomerReply: true };

/**
 * Web chat identity verification: whether the widget's signed visitor identity (userId, email, userHash) is
 * checked. `off`: never read. `optional`: trusted when signed, ignored otherwise. `required`: a visitor without a
 * valid signature cannot chat. Absent (integrations before it): off.
 */
export const identityVerification = z.enum(['off', 'optional', 'required']);
export type IdentityVerification = z.infer<typeof identityVerification>;

const settings = z.object({
  name: z.string().min(1).max(200),
  apiUrl: z.string().max(2048).nullable(),
  webhookSecret: sealed.nullable(),
  apiToken: sealed.nullable(),
  active: z.boolean(),
  agentId: z.uuid().nullable(),
  allowedOrigins: z.array(z.string().max(300)).max(50),
  /** Web chat: the first message a visitor sees. Optional: integrations created before it have none. */
  greeting: z.string().max(WEBCHAT_GREETING_MAX_LENGTH).nullable().optional(),
  /** Absent (integrations before it): DEFAULT_CSAT_SETTINGS. */
  csat: csatSettings.optional(),
  /** Web chat: the key the company's site signs visitor identities with (HMAC-SHA256), sealed. Absent: none. */
  identitySecret: sealed.nullable().optional(),
  identityVerification: identityVerification.optional(),
  /** Web chat: ask a new visitor for a name and email (both optional) before the first message. Absent: off. */
  prechatForm: z.boolean().optional(),
});
export type IntegrationSettings = z.infer<typeof settings>;

export const integrationEvents = {
  IntegrationCreated: settings.extend({
    integrationId: z.number().int().positive(),
    companyId: z.uuid(),
    connectorType,
    at: z.iso.datetime(),
  }),
  IntegrationUpdated: z.object({ changes: settings.partial(), at: z.iso.datetime() }),
  IntegrationDeleted: z.object({ at: z.iso.datetime() }),
  // Looser than platformIdSchema on purpose: ids stored while the platform client accepted any string or number
  // must still read (events are validated on read).
  WebhookRegistered: z.object({ platformWebhookId: z.union([z.string(), z.number()]).nullable(), url: z.string(), at: z.iso.datetime() }),
};
type Events = typeof integrationEvents;
export type IntegrationEvent = { [K in keyof Events]: { type: K; data: z.infer<Events[K]> } }[keyof Events];
