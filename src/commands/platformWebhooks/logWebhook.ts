import { randomUUID } from 'node:crypto';
import { webhookLogStream, type WebhookLogEntry } from '../../domain/platformWebhooks/events.js';
import type { CommandDeps } from '../deps.js';

/** Append-only delivery log: no decision to make, so any revision will do. */
export async function logWebhook(deps: CommandDeps, entry: Omit<WebhookLogEntry, 'logId'>) {
  const logId = randomUUID();
  const result = await deps.eventStore.append(
    webhookLogStream(entry.integrationId),
    [{ id: logId, type: 'WebhookDeliveryLogged', data: { logId, ...entry }, metadata: { companyId: entry.companyId, actor: 'platform' } }],
    'any',
  );
  return { logId, position: result.position };
}
