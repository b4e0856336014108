import { integrationDecider, integrationStream } from '../../domain/integrations/decider.js';
import { type ConnectorType } from '../../domain/integrations/events.js';
import { sequenceDecider, sequenceStream } from '../../domain/sequence/decider.js';
import { handleCommand } from '../handleCommand.js';
import { checkAgentReference } from './agentReference.js';
import type { CommandDeps } from '../deps.js';
import type { SecretBox } from '../../ports/secretBox.js';
import { toSettings, type IntegrationInput } from './integrationInput.js';

export async function createIntegration(
  deps: CommandDeps & { secretBox: SecretBox },
  input: { companyId: string; userId: string; connectorType: ConnectorType; name: string } & IntegrationInput,
) {
  // Before the id is reserved: a refused agent must not burn an integration number.
  await checkAgentReference(deps.eventStore, input.companyId, input.agentId);
  const metadata = { companyId: input.companyId, actor: `user:${input.userId}` };
  const seq = await handleCommand(deps.eventStore, sequenceStream('integrations'), sequenceDecider, { reservedFor: input.companyId }, { maxRetries: 20, metadata });
  const integrationId = seq.state.last;
  const settings = toSettings(input, deps.secretBox);
  return handleCommand(
    deps.eventStore,
    integrationStream(integrationId),
    integrationDecider,
    {
      type: 'CreateIntegration',
      integrationId,
      companyId: input.companyId,
      connectorType: input.connectorType,
      now: deps.clock.now().toISOString(),
      name: input.name,
      apiUrl: settings.apiUrl ?? null,
      apiToken: settings.apiToken ?? null,
      webhookSecret: settings.webhookSecret ?? null,
      active: settings.active ?? true,
      agentId: settings.agentId ?? null,
      allowedOrigins: settings.allowedOrigins ?? [],
      greeting: settings.greeting ?? null,
      ...(settings.csat ? { csat: settings.csat } : {}),
      ...(settings.identityVerification ? { identityVerification: settings.identityVerification } : {}),
      ...(settings.prechatForm ? { prechatForm: true } : {}),
    },
    { metadata },
  );
}
