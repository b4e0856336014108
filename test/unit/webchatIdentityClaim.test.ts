import { describe, expect, it } from 'vitest';
import { checkVisitorIdentity, identityHash } from '../../src/commands/webchat/visitorIdentity.js';
import type { WebchatIntegration } from '../../src/commands/integrations/streamReads.js';
import { parseClientFrame } from '../../src/http/webchatFrames.js';

const hello = (frame: Record<string, unknown>) => parseClientFrame(JSON.stringify({ type: 'hello', ...frame }), false);
const HASH = 'a'.repeat(64);

describe('the hello frame\'s identity claim', () => {
  it('a user id, an optional email and a 64-hex-digit hash are read as the claim (hash lower-cased)', () => {
    expect(hello({ userId: 'u-42', email: 'ann@shop.example', userHash: 'A'.repeat(64) })).toEqual({ type: 'hello', identity: { userId: 'u-42', email: 'ann@shop.example', userHash: HASH } });
    expect(hello({})).toEqual({ type: 'hello' });
  });

  it('refuses a malformed claim: no user id beside a hash, a line break in the user id or email, a hash that is not hex SHA-256', () => {
    for (const bad of [{ userHash: HASH }, { userId: 'u\n42', userHash: HASH }, { userId: 'u-42', email: 'a@b.c\nx', userHash: HASH }, { userId: 'u-42', userHash: 'abc' }, { userId: 42, userHash: HASH }, { userId: 'x'.repeat(257) }]) {
      expect(hello(bad)).toMatchObject({ type: 'error', code: 'VALIDATION_ERROR' });
    }
  });
});

describe('checking the claim against the integration', () => {
  const box = { seal: (s: string) => `v1:${s}`, open: (s: string) => s.slice(3) };
  const integration = (identityVerification: 'off' | 'optional' | 'required') => ({ identityVerification, identitySecret: 'v1:idv_secret' }) as unknown as WebchatIntegration;
  const signed = { userId: 'u-42', email: 'ann@shop.example', userHash: identityHash('idv_secret', 'u-42', 'ann@shop.example') };

  it('a signature over user id and email verifies; the same hash with another email or user does not', () => {
    expect(checkVisitorIdentity(integration('required'), signed, box)).toEqual({ ok: true, visitor: { userId: 'u-42', email: 'ann@shop.example' } });
    expect(checkVisitorIdentity(integration('required'), { ...signed, email: 'boss@shop.example' }, box)).toMatchObject({ ok: false, code: 'INVALID_IDENTITY' });
    expect(checkVisitorIdentity(integration('required'), { ...signed, userId: 'u-43' }, box)).toMatchObject({ ok: false, code: 'INVALID_IDENTITY' });
  });

  it('optional ignores what does not verify; off never reads a claim', () => {
    expect(checkVisitorIdentity(integration('optional'), { ...signed, userId: 'u-43' }, box)).toEqual({ ok: true, visitor: null });
    expect(checkVisitorIdentity(integration('off'), signed, box)).toEqual({ ok: true, visitor: null });
    expect(checkVisitorIdentity(integration('required'), {}, box)).toMatchObject({ ok: false, code: 'IDENTITY_REQUIRED' });
  });
});
