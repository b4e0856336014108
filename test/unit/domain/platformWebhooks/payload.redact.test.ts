import { describe, expect, it } from 'vitest';
import { loggedPayload, PAYLOAD_BODY_MAX_CHARS, REDACTED } from '../../../../src/domain/platformWebhooks/payload.js';

describe('loggedPayload', () => {
  it('keeps harmless headers, marks credential headers and drops the rest', () => {
    const p = loggedPayload(Buffer.from('{}'), { 'content-type': 'application/json', 'x-hub-signature-256': 'sha256=abc', cookie: 'sid=1', 'x-forwarded-for': '10.0.0.1' }, []);
    expect(p.headers).toEqual({ 'content-type': 'application/json', 'x-hub-signature-256': REDACTED });
  });
  it('replaces credential-named fields at any depth and known secrets anywhere in the text', () => {
    const body = { text: 'my key is s3cr3t-value-long', apiKey: 'k', nested: { list: [{ refresh_token: 'r', ok: 1 }] } };
    const p = loggedPayload(Buffer.from(JSON.stringify(body)), {}, ['s3cr3t-value-long', null, 'short']);
    expect(JSON.parse(p.body)).toEqual({ text: `my key is ${REDACTED}`, apiKey: REDACTED, nested: { list: [{ refresh_token: REDACTED, ok: 1 }] } });
  });
  it('does not keep a body that is not JSON, and cuts a long one', () => {
    expect(loggedPayload(Buffer.from('password=hunter2'), {}, []).body).toBe('[not JSON: 16 bytes, not stored]');
    const long = loggedPayload(Buffer.from(JSON.stringify({ text: 'x'.repeat(20_000) })), {}, []);
    expect(long).toMatchObject({ truncated: true });
    expect(long.body).toHaveLength(PAYLOAD_BODY_MAX_CHARS);
  });
});
