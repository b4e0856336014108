import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createSecretBox } from '../../src/infrastructure/crypto/secretBox.js';
import { createLlmResolver } from '../../src/infrastructure/llm/llmForCompany.js';
import { LlmError } from '../../src/ports/llm.js';

const box = createSecretBox(randomBytes(32));
const openai = (key: string | null, baseUrl = 'https://llm.example.com/v1') => ({
  provider: 'openai' as const,
  baseUrl,
  model: 'gpt-4o-mini',
  sealedApiKey: key === null ? null : box.seal(key),
});

describe('LLM resolver (company configuration → provider)', () => {
  it('gives the shared builtin provider for builtin', async () => {
    const resolve = createLlmResolver({ secretBox: box });
    const builtin = resolve({ provider: 'builtin', baseUrl: null, model: null, sealedApiKey: null });
    expect(builtin).toBe(resolve({ provider: 'builtin', baseUrl: null, model: null, sealedApiKey: null }));
    expect(await builtin.testConnection()).toMatchObject({ ok: true });
  });

  it('caches one OpenAI-compatible client per (baseUrl, key), whatever the key’s ciphertext', () => {
    const resolve = createLlmResolver({ secretBox: box });
    const a = resolve(openai('sk-one'));
    expect(resolve(openai('sk-one'))).toBe(a); // sealed anew (another nonce), same key
    expect(resolve(openai('sk-two'))).not.toBe(a);
    expect(resolve(openai('sk-one', 'https://other.example.com/v1'))).not.toBe(a);
    expect(resolve(openai(null))).not.toBe(a);
  });

  it('drops the least recently used client past its cache size', () => {
    const resolve = createLlmResolver({ secretBox: box, maxCachedClients: 2 });
    const a = resolve(openai('a'));
    resolve(openai('b'));
    expect(resolve(openai('a'))).toBe(a); // a is now the most recent
    resolve(openai('c')); // evicts b
    expect(resolve(openai('a'))).toBe(a);
  });

  it('a key that cannot be decrypted is an LlmError that says nothing of the key', () => {
    const resolve = createLlmResolver({ secretBox: createSecretBox(randomBytes(32)) });
    const sealed = openai('sk-secret-value');
    expect(() => resolve(sealed)).toThrow(LlmError);
    try {
      resolve(sealed);
    } catch (err) {
      expect((err as LlmError).kind).toBe('auth');
      expect((err as Error).message).not.toContain(sealed.sealedApiKey!);
    }
  });
});
