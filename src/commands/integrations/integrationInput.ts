import type { CsatSettings, IdentityVerification, IntegrationSettings } from '../../domain/integrations/events.js';
import type { SecretBox } from '../../ports/secretBox.js';

/** What a client may send: secrets in plain text (write-only), everything else as stored. */
export interface IntegrationInput {
  name?: string;
  apiUrl?: string | null;
  apiToken?: string | null;
  webhookSecret?: string | null;
  active?: boolean;
  agentId?: string | null;
  allowedOrigins?: string[];
  greeting?: string | null;
  csat?: CsatSettings;
  identityVerification?: IdentityVerification;
  prechatForm?: boolean;
}

/** Seals secrets before they reach an event; `undefined` keeps the current value, `null` clears it. */
export function toSettings(input: IntegrationInput, box: SecretBox): Partial<IntegrationSettings> {
  const seal = (v: string | null | undefined) => (v === undefined ? undefined : v === null || v === '' ? null : box.seal(v));
  return {
    name: input.name,
    apiUrl: input.apiUrl === '' ? null : input.apiUrl,
    apiToken: seal(input.apiToken),
    webhookSecret: seal(input.webhookSecret),
    active: input.active,
    agentId: input.agentId,
    allowedOrigins: input.allowedOrigins,
    greeting: input.greeting === '' ? null : input.greeting,
    csat: input.csat,
    identityVerification: input.identityVerification,
    prechatForm: input.prechatForm,
  };
}
