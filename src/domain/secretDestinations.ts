import { DomainError } from './errors.js';

/**
 * A stored secret (an action's header values, a platform API token, an LLM API key) was given for one address:
 * an edit that sends the call somewhere else must carry the secret again, or whoever may edit the address
 * (any admin) could have it sent to a host of their choosing. "Somewhere else" is another origin: scheme, host
 * and port, so neither another host nor a downgrade to plain http keeps it.
 */

/** The origin an address (or an action's URL template, its placeholders filled) sends to; null without one. */
export function destinationOf(address: string | null | undefined): string | null {
  if (!address) return null;
  const filled = address.replace(/\{[^{}]*\}/g, 'x');
  if (!URL.canParse(filled)) return null;
  const origin = new URL(filled).origin;
  return origin === 'null' ? null : origin;
}

/**
 * Refuses an edit that would send a kept secret to another destination. `from` is the stored address, `to` the
 * edited one (undefined: not edited); `keeps` whether a stored secret would stay without being given again. A
 * cleared address (`to` null) sends nothing, so it keeps the secret until an address is set again.
 */
export function refuseSecretToNewDestination(field: string, secret: string, from: string | null, to: string | null | undefined, keeps: boolean): void {
  if (!keeps || to === undefined || to === null) return;
  if (destinationOf(to) === destinationOf(from)) return;
  throw new DomainError(
    'VALIDATION_ERROR',
    `${field}: the address now points to another host (or scheme or port), and the stored ${secret} is never sent to a new address: give it again with the new address, or remove it`,
  );
}
