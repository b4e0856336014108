import { randomBytes } from 'node:crypto';
import { integrationDecider, integrationStream } from '../../domain/integrations/decider.js';
import type { SecretBox } from '../../ports/secretBox.js';
import type { CommandDeps } from '../deps.js';
import { handleCommand } from '../handleCommand.js';

/** A web-chat identity secret: 256 random bits. The company's site uses the whole string as the HMAC key. */
export const newIdentitySecret = () => `idv_${randomBytes(32).toString('base64url')}`;

/**
 * Generates (or rotates) a web chat integration's identity secret. It is returned once, to be shown once, and
 * enters the event sealed; a rotation makes every signature made with the old one invalid at once.
 */
export async function rotateIdentitySecret(deps: CommandDeps & { secretBox: SecretBox }, input: { companyId: string; userId: string; integrationId: number }) {
  const secret = newIdentitySecret();
  const result = await handleCommand(
    deps.eventStore,
    integrationStream(input.integrationId),
    integrationDecider,
    { type: 'UpdateIntegration', companyId: input.companyId, changes: { identitySecret: deps.secretBox.seal(secret) }, now: deps.clock.now().toISOString() },
    { metadata: { companyId: input.companyId, actor: `user:${input.userId}` } },
  );
  return { ...result, secret };
}
