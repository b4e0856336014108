import { describe, expect, it } from 'vitest';
import { idForKey, requestHashOf, startOnce } from '../../src/commands/idempotentStart.js';
import { DomainError } from '../../src/domain/errors.js';
import type { RecordedEvent } from '../../src/ports/eventStore.js';

const A = '11111111-1111-4111-8111-111111111111';
const B = '22222222-2222-4222-8222-222222222222';
const started = (requestHash?: string) => ({ data: requestHash ? { requestHash } : {} }) as RecordedEvent<string, { requestHash?: string }>;

describe('idempotency keys', () => {
  it('name one run per company, kind of start and part: the same key elsewhere is another run', () => {
    const ids = [idForKey(A, 'replay', 'k'), idForKey(B, 'replay', 'k'), idForKey(A, 'test-run', 'k'), idForKey(A, 'release-check', 'k'), idForKey(A, 'release-check', 'k', 'replay'), idForKey(A, 'replay', 'K')];
    expect(new Set(ids).size).toBe(ids.length);
    expect(idForKey(A, 'replay', 'k')).toBe(ids[0]);
    for (const id of ids) expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });

  it('hash a request whatever the order of its JSON keys, and tell another request apart', () => {
    expect(requestHashOf({ a: 1, b: { c: [1, { d: 2, e: 3 }] } })).toBe(requestHashOf({ b: { c: [1, { e: 3, d: 2 }] }, a: 1 }));
    expect(requestHashOf({ a: 1, b: undefined })).toBe(requestHashOf({ a: 1 }));
    expect(requestHashOf({ a: [1, 2] })).not.toBe(requestHashOf({ a: [2, 1] }));
    expect(requestHashOf({ a: '1' })).not.toBe(requestHashOf({ a: 1 }));
  });

  it('given no run yet, when started, then it starts; given the run, then it is answered without starting; given another request’s run, then IDEMPOTENCY_KEY_REUSED', async () => {
    const key = { key: 'k', requestHash: 'a'.repeat(64) };
    let starts = 0;
    expect(await startOnce(key, async () => undefined, async () => void starts++)).toBe(false);
    expect(await startOnce(key, async () => started(key.requestHash), async () => void starts++)).toBe(true);
    await expect(startOnce(key, async () => started('b'.repeat(64)), async () => void starts++)).rejects.toMatchObject({ code: 'IDEMPOTENCY_KEY_REUSED' });
    expect(starts).toBe(1);
  });

  it('given a race lost to a request with the key (the append conflicts), then the winner’s run is answered; any other refusal is passed on', async () => {
    const key = { key: 'k', requestHash: 'a'.repeat(64) };
    let stored: RecordedEvent<string, { requestHash?: string }> | undefined;
    const lost = startOnce(key, async () => stored, async () => {
      stored = started(key.requestHash);
      throw new DomainError('CONFLICT', 'Replay already exists');
    });
    expect(await lost).toBe(true);
    const estimate = startOnce(key, async () => undefined, async () => {
      throw new DomainError('CONFLICT', 'The estimated cost is now 5 micro-dollars');
    });
    await expect(estimate).rejects.toThrow('estimated cost');
  });
});
