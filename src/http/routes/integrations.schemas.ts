import { z } from 'zod';
import type { LiveIntegration } from '../../commands/integrations/streamReads.js';
import { connectorType, csatSettings, DEFAULT_CSAT_SETTINGS, identityVerification, WEBCHAT_GREETING_MAX_LENGTH } from '../../domain/integrations/events.js';
import type { IntegrationDoc } from '../../projections/integrations/integrationsProjection.js';
import { bearerSecurity as security, errorResponses, listQuery } from './schemas.js';

export const integrationSchema = z.object({
  id: z.number().int(),
  name: z.string(),
  connectorType,
  apiUrl: z.string().nullable(),
  active: z.boolean(),
  agentId: z.string().nullable(),
  hasWebhookSecret: z.boolean(),
  hasApiToken: z.boolean(),
  webhookUrl: z.string(),
  webhookRegistered: z.boolean(),
  webhookRegisteredAt: z.string().nullable(),
  allowedOrigins: z.array(z.string()),
  /** msgplatform without apiUrl: replies are recorded as delivered to the sandbox and sent nowhere. */
  sandbox: z.boolean(),
  greeting: z.string().nullable().describe('webchat: the first message the widget shows a visitor'),
  csat: csatSettings.describe('The satisfaction survey after a close: off by default; skipWithoutCustomerReply skips conversations the customer never wrote back in'),
  identityVerification: identityVerification.describe('webchat: off (visitor identity claims are not read), optional (trusted when signed, ignored otherwise) or required (no chat without a valid signature)'),
  prechatForm: z.boolean().describe('webchat: the widget asks a new visitor for a name and email (both optional) before the first message; off by default'),
  hasIdentitySecret: z.boolean().describe('webchat: an identity secret is set (POST /api/integrations/:id/identity-secret shows a new one once)'),
  createdAt: z.string(),
  updatedAt: z.string(),
});

const origin = z
  .string()
  .trim()
  .max(300)
  .refine((v) => {
    try {
      const u = new URL(v);
      return (u.protocol === 'https:' || u.protocol === 'http:') && u.origin === v.replace(/\/$/, '');
    } catch {
      return false;
    }
  }, 'must be an origin such as https://shop.example.com')
  .transform((v) => v.replace(/\/$/, ''));

const writable = {
  name: z.string().trim().min(1).max(200),
  apiUrl: z.string().trim().max(2048).nullable(),
  apiToken: z.string().max(2048).nullable(),
  webhookSecret: z.string().min(16, 'must be at least 16 characters').max(512).nullable(),
  active: z.boolean(),
  agentId: z.uuid().nullable(),
  allowedOrigins: z.array(origin).max(50),
  greeting: z
    .string()
    .trim()
    .max(WEBCHAT_GREETING_MAX_LENGTH, `must be at most ${WEBCHAT_GREETING_MAX_LENGTH} characters`)
    // Line breaks are kept (the widget shows them); other control characters have no place in a chat bubble.
    .refine((v) => !/[\u0000-\u0008\u000b-\u001f\u007f]/.test(v), 'must not contain control characters')
    .nullable(),
  csat: z.strictObject(csatSettings.shape),
  identityVerification,
  prechatForm: z.boolean(),
};

/** Where the platform posts the integration's webhooks (under PUBLIC_BASE_URL). */
export const webhookUrlOf = (publicBaseUrl: string, type: string, id: number) => `${publicBaseUrl}/api/webhook/${type}/${id}`;

export function integrationView(publicBaseUrl: string, i: IntegrationDoc | LiveIntegration): z.infer<typeof integrationSchema> {
  const isDoc = 'hasApiToken' in i;
  return {
    id: i.integrationId,
    name: i.name,
    connectorType: i.connectorType,
    apiUrl: i.apiUrl,
    active: i.active,
    agentId: i.agentId,
    hasWebhookSecret: isDoc ? i.hasWebhookSecret : i.webhookSecret !== null,
    hasApiToken: isDoc ? i.hasApiToken : i.apiToken !== null,
    webhookUrl: webhookUrlOf(publicBaseUrl, i.connectorType, i.integrationId),
    webhookRegistered: i.webhookRegisteredAt !== null,
    webhookRegisteredAt: i.webhookRegisteredAt,
    allowedOrigins: i.allowedOrigins,
    sandbox: i.connectorType === 'msgplatform' && !i.apiUrl,
    greeting: i.greeting ?? null,
    csat: i.csat ?? DEFAULT_CSAT_SETTINGS,
    identityVerification: i.identityVerification ?? 'off',
    prechatForm: i.prechatForm ?? false,
    hasIdentitySecret: isDoc ? (i.hasIdentitySecret ?? false) : Boolean(i.identitySecret),
    createdAt: i.createdAt,
    updatedAt: i.updatedAt,
  };
}

const tags = ['integrations'];
const idParams = z.object({ id: z.string().max(20) });
const one = z.object({ integration: integrationSchema });

export const listIntegrationsSchema = {
  tags,
  security,
  querystring: listQuery,
  response: { 200: z.object({ integrations: z.array(integrationSchema), nextCursor: z.string().nullable() }), ...errorResponses },
};

/** What a teammate may write on an integration: its connector is chosen once, at creation. */
const integrationBody = z.strictObject({
  name: writable.name,
  connectorType,
  apiUrl: writable.apiUrl.optional(),
  apiToken: writable.apiToken.optional(),
  webhookSecret: writable.webhookSecret.optional(),
  active: writable.active.optional(),
  agentId: writable.agentId.optional(),
  allowedOrigins: writable.allowedOrigins.optional(),
  greeting: writable.greeting.optional(),
  csat: writable.csat.optional(),
  identityVerification: writable.identityVerification.optional(),
  prechatForm: writable.prechatForm.optional(),
});

export const createIntegrationSchema = {
  tags,
  security,
  body: integrationBody,
  response: { 201: one, ...errorResponses },
};

export const getIntegrationSchema = { tags, security, params: idParams, response: { 200: one, ...errorResponses } };

export const updateIntegrationSchema = {
  tags,
  security,
  params: idParams,
  body: integrationBody.omit({ connectorType: true }).partial(),
  response: { 200: one, ...errorResponses },
};

export const deleteIntegrationSchema = { tags, security, params: idParams, response: { 204: z.null(), ...errorResponses } };

export const registerWebhookSchema = {
  tags,
  security,
  params: idParams,
  response: { 200: z.object({ ok: z.literal(true), webhookRegisteredAt: z.string() }), 502: errorResponses[500], ...errorResponses },
};

export const rotateIdentitySecretSchema = {
  tags,
  security,
  summary: "Generates (or rotates) a web chat integration's identity secret",
  description:
    'Owners and admins. The secret is in this response only (it is stored sealed and never shown again); the old one stops verifying at once. The company\'s site signs each visitor with it: see docs/api/webchat.md, "Identity verification".',
  params: idParams,
  response: { 200: z.object({ integration: integrationSchema, identitySecret: z.string() }), ...errorResponses },
};
