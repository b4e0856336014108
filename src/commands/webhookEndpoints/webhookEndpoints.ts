import { randomBytes, randomUUID } from 'node:crypto';
import { webhookEndpointsDecider, webhookEndpointsStream, type WebhookEndpointCommand } from '../../domain/webhookEndpoints/decider.js';
import type { WebhookEndpointFields } from '../../domain/webhookEndpoints/events.js';
import type { SecretBox } from '../../ports/secretBox.js';
import type { CommandDeps } from '../deps.js';
import { handleCommand } from '../handleCommand.js';

/** Manage a company's outbound webhook endpoints (one `webhookendpoints-<companyId>` stream). */

type Actor = { companyId: string; by: string };
type Deps = CommandDeps & { secretBox: SecretBox };
type Distribute<T> = T extends unknown ? Omit<T, 'companyId' | 'by' | 'now'> : never;

/** A Standard Webhooks secret: `whsec_` and 32 random bytes in base64. Shown once, then stored sealed. */
export const newSigningSecret = () => `whsec_${randomBytes(32).toString('base64')}`;

async function run(deps: CommandDeps, actor: Actor, command: Distribute<WebhookEndpointCommand>) {
  return handleCommand(
    deps.eventStore,
    webhookEndpointsStream(actor.companyId),
    webhookEndpointsDecider,
    { ...command, companyId: actor.companyId, by: actor.by, now: deps.clock.now().toISOString() } as WebhookEndpointCommand,
    { metadata: { companyId: actor.companyId, actor: actor.by } },
  );
}

export async function createWebhookEndpoint(deps: Deps, actor: Actor, fields: WebhookEndpointFields) {
  const endpointId = randomUUID();
  const secret = newSigningSecret();
  const result = await run(deps, actor, { type: 'CreateWebhookEndpoint', endpointId, secret: deps.secretBox.seal(secret), ...fields });
  return { ...result, endpoint: result.state.endpoints.get(endpointId)!, secret };
}

export async function updateWebhookEndpoint(deps: CommandDeps, actor: Actor, endpointId: string, changes: Partial<WebhookEndpointFields>) {
  const result = await run(deps, actor, { type: 'UpdateWebhookEndpoint', endpointId, changes });
  return { ...result, endpoint: result.state.endpoints.get(endpointId)! };
}

export const deleteWebhookEndpoint = (deps: CommandDeps, actor: Actor, endpointId: string) => run(deps, actor, { type: 'DeleteWebhookEndpoint', endpointId });

export async function rotateWebhookEndpointSecret(deps: Deps, actor: Actor, endpointId: string) {
  const secret = newSigningSecret();
  const result = await run(deps, actor, { type: 'RotateWebhookEndpointSecret', endpointId, secret: deps.secretBox.seal(secret) });
  return { ...result, endpoint: result.state.endpoints.get(endpointId)!, secret };
}

/** Switched off by the delivery worker after its retry schedule ran out. */
export const disableWebhookEndpoint = (deps: CommandDeps, companyId: string, endpointId: string, reason: string) =>
  run(deps, { companyId, by: 'system:webhook-delivery' }, { type: 'DisableWebhookEndpoint', endpointId, reason });

export const requestWebhookEndpointReplay = (deps: CommandDeps, actor: Actor, endpointId: string, from: string) =>
  run(deps, actor, { type: 'RequestWebhookEndpointReplay', endpointId, replayId: randomUUID(), from });

export const setCreditsLowThreshold = (deps: CommandDeps, actor: Actor, thresholdMicros: number) => run(deps, actor, { type: 'SetCreditsLowThreshold', thresholdMicros });
