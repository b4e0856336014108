import { integrationDecider, integrationStream } from '../../domain/integrations/decider.js';
import { loadCompanyIntegration } from './streamReads.js';
import { DomainError } from '../../domain/errors.js';
import { PlatformError, type PlatformClient } from '../../ports/platform.js';
import { handleCommand } from '../handleCommand.js';
import type { CommandDeps } from '../deps.js';
import type { SecretBox } from '../../ports/secretBox.js';

/**
 * Registers (or re-registers) our webhook URL on the platform. Only a confirmed registration is
 * recorded: a refusal or timeout leaves the integration exactly as it was.
 */
export async function registerWebhook(
  deps: CommandDeps & { secretBox: SecretBox; platform: PlatformClient },
  input: { companyId: string; userId: string; integrationId: number; webhookUrl: string },
) {
  const state = await loadCompanyIntegration(deps.eventStore, input.companyId, input.integrationId);
  if (state === null) throw new DomainError('NOT_FOUND', 'Integration not found');
  if (!state.apiUrl) throw new DomainError('not_supported', 'Set the platform API URL (apiUrl) of this integration before registering its webhook');
  if (!state.apiToken) throw new DomainError('VALIDATION_ERROR', 'Set the platform API token (apiToken) of this integration before registering its webhook');
  let registered;
  try {
    registered = await deps.platform.registerWebhook({
      apiUrl: state.apiUrl,
      apiToken: deps.secretBox.open(state.apiToken),
      url: input.webhookUrl,
      name: `Messaging Agent Service #${input.integrationId}`,
    });
  } catch (err) {
    if (err instanceof PlatformError) throw new DomainError('PLATFORM_ERROR', `The messaging platform did not accept the registration: ${err.message}`);
    throw err;
  }
  const now = deps.clock.now().toISOString();
  const result = await handleCommand(
    deps.eventStore,
    integrationStream(input.integrationId),
    integrationDecider,
    { type: 'RecordWebhookRegistration', companyId: input.companyId, platformWebhookId: registered.webhookId, url: input.webhookUrl, now },
    { metadata: { companyId: input.companyId, actor: `user:${input.userId}` } },
  );
  return { webhookRegisteredAt: now, position: result.position, state: result.state };
}
