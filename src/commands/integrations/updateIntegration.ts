import { integrationDecider, integrationStream } from '../../domain/integrations/decider.js';
import { handleCommand } from '../handleCommand.js';
import { checkAgentReference } from './agentReference.js';
import type { CommandDeps } from '../deps.js';
import type { SecretBox } from '../../ports/secretBox.js';
import { toSettings, type IntegrationInput } from './integrationInput.js';

export async function updateIntegration(
  deps: CommandDeps & { secretBox: SecretBox },
  input: { companyId: string; userId: string; integrationId: number; changes: IntegrationInput },
) {
  await checkAgentReference(deps.eventStore, input.companyId, input.changes.agentId);
  return handleCommand(
    deps.eventStore,
    integrationStream(input.integrationId),
    integrationDecider,
    { type: 'UpdateIntegration', companyId: input.companyId, changes: toSettings(input.changes, deps.secretBox), now: deps.clock.now().toISOString() },
    { metadata: { companyId: input.companyId, actor: `user:${input.userId}` } },
  );
}

export async function deleteIntegration(deps: CommandDeps, input: { companyId: string; userId: string; integrationId: number }) {
  return handleCommand(
    deps.eventStore,
    integrationStream(input.integrationId),
    integrationDecider,
    { type: 'DeleteIntegration', companyId: input.companyId, now: deps.clock.now().toISOString() },
    { metadata: { companyId: input.companyId, actor: `user:${input.userId}` } },
  );
}
