import { describe, expect, it } from 'vitest';
import { companyDecider } from '../../../../src/domain/company/decider.js';
import { type CompanyEvent } from '../../../../src/domain/company/events.js';
import { DEFAULT_LLM_CONFIG } from '../../../../src/domain/llm/state.js';
import { isLlmBaseUrl, llmConfigDecider } from '../../../../src/domain/llm/decider.js';
import { llmConfigEvents, type LlmConfigEvent } from '../../../../src/domain/llm/events.js';
import { specFor } from '../../../support/gwt.js';

const C1 = 'cccccccc-cccc-4ccc-8ccc-cccccccccccc';
const U1 = '11111111-1111-4111-8111-111111111111';
const T0 = '2026-01-01T00:00:00.000Z';
const T1 = '2026-01-02T00:00:00.000Z';
const KEY = 'v1:bm9uY2U:dGFn:Y2lwaGVy';
const KEY2 = 'v1:b3RoZXI:dGFn:Y2lwaGVy';

const llm = specFor(llmConfigDecider);
const registered = { type: 'CompanyRegistered', data: { companyId: C1, companyKey: 1, name: 'Acme', ownerUserId: U1, createdAt: T0 } } as const;
const companyHistory = [registered as unknown as LlmConfigEvent];
const openai: LlmConfigEvent = { type: 'LlmConfigured', data: { provider: 'openai', baseUrl: 'https://api.openai.com/v1', model: 'gpt-4o-mini', apiKey: KEY, at: T0 } };
const configure = (over: Record<string, unknown> = {}) =>
  ({ type: 'ConfigureLlm', provider: 'openai', baseUrl: 'https://api.openai.com/v1', model: 'gpt-4o-mini', apiKey: undefined, now: T1, ...over }) as const;

describe('LLM configuration decider (company stream)', () => {
  it('defaults to the builtin provider, ignoring the company stream’s other events', () => {
    expect(llm.given(companyHistory).state).toEqual({ ...DEFAULT_LLM_CONFIG, configuredAt: null });
    expect(DEFAULT_LLM_CONFIG).toEqual({ provider: 'builtin', baseUrl: null, model: null, sealedApiKey: null });
  });

  it('and the company decider ignores LlmConfigured', () => {
    const company = [registered as CompanyEvent, openai as unknown as CompanyEvent].reduce(companyDecider.evolve, companyDecider.initialState);
    expect(company).toMatchObject({ exists: true, name: 'Acme' });
  });

  it('configures an OpenAI-compatible provider with a sealed key', () => {
    const state = llm
      .given(companyHistory)
      .when(configure({ apiKey: KEY, now: T0 }))
      .then([openai]);
    expect(state).toEqual({ provider: 'openai', baseUrl: 'https://api.openai.com/v1', model: 'gpt-4o-mini', sealedApiKey: KEY, configuredAt: T0 });
    expect(llmConfigEvents.LlmConfigured.safeParse(openai.data).success).toBe(true);
  });

  it('an omitted key keeps the stored one; null clears it; a new one replaces it', () => {
    llm
      .given([openai])
      .when(configure({ model: 'gpt-4o' }))
      .then([{ type: 'LlmConfigured', data: { ...openai.data, model: 'gpt-4o', at: T1 } }]);
    llm
      .given([openai])
      .when(configure({ apiKey: null }))
      .then([{ type: 'LlmConfigured', data: { ...openai.data, apiKey: null, at: T1 } }]);
    llm
      .given([openai])
      .when(configure({ apiKey: KEY2 }))
      .then([{ type: 'LlmConfigured', data: { ...openai.data, apiKey: KEY2, at: T1 } }]);
  });

  it('the same configuration without a new key records nothing', () => {
    llm.given([openai]).when(configure()).then([]);
  });

  it('switching to builtin keeps the stored key for a later switch back', () => {
    const state = llm
      .given([openai])
      .when(configure({ provider: 'builtin', baseUrl: null, model: null }))
      .then([{ type: 'LlmConfigured', data: { provider: 'builtin', baseUrl: null, model: null, apiKey: KEY, at: T1 } }]);
    expect(state.sealedApiKey).toBe(KEY);
  });

  it('openai needs an http(s) baseUrl and a model', () => {
    llm.given([]).when(configure({ baseUrl: null })).thenThrows('VALIDATION_ERROR');
    llm.given([]).when(configure({ model: null })).thenThrows('VALIDATION_ERROR');
    llm.given([]).when(configure({ baseUrl: 'ftp://example.com/v1' })).thenThrows('VALIDATION_ERROR');
    llm.given([]).when(configure({ baseUrl: 'not a url' })).thenThrows('VALIDATION_ERROR');
    llm.given([]).when(configure({ baseUrl: 'https://user:pw@example.com/v1' })).thenThrows('VALIDATION_ERROR');
    llm.given([]).when(configure({ baseUrl: 'http://localhost:11434/v1', model: 'llama3.2' })).then([
      { type: 'LlmConfigured', data: { provider: 'openai', baseUrl: 'http://localhost:11434/v1', model: 'llama3.2', apiKey: null, at: T1 } },
    ]);
  });

  it('recognises base URLs', () => {
    expect(isLlmBaseUrl('https://api.openai.com/v1')).toBe(true);
    expect(isLlmBaseUrl('http://127.0.0.1:8000/v1')).toBe(true);
    expect(isLlmBaseUrl('javascript:alert(1)')).toBe(false);
    expect(isLlmBaseUrl(`https://example.com/${'a'.repeat(3000)}`)).toBe(false);
  });

  it('the event schema refuses a plain (unsealed) key', () => {
    expect(llmConfigEvents.LlmConfigured.safeParse({ ...openai.data, apiKey: 'sk-plain-text-key' }).success).toBe(false);
  });
});

describe('the API key stays with its address', () => {
  it('given a stored key, when baseUrl moves to another host without the key, then VALIDATION_ERROR: the key must come again', () => {
    llm.given([openai]).when(configure({ baseUrl: 'https://attacker.example/v1' })).thenThrows('VALIDATION_ERROR');
    llm.given([openai]).when(configure({ baseUrl: 'http://api.openai.com/v1' })).thenThrows('VALIDATION_ERROR');
  });

  it('given a stored key, when baseUrl moves with a key, or with the key removed, or within the same host, then it is configured', () => {
    llm.given([openai]).when(configure({ baseUrl: 'https://gateway.example/v1', apiKey: KEY2 })).then([
      { type: 'LlmConfigured', data: { provider: 'openai', baseUrl: 'https://gateway.example/v1', model: 'gpt-4o-mini', apiKey: KEY2, at: T1 } },
    ]);
    llm.given([openai]).when(configure({ baseUrl: 'https://gateway.example/v1', apiKey: null })).then([
      { type: 'LlmConfigured', data: { provider: 'openai', baseUrl: 'https://gateway.example/v1', model: 'gpt-4o-mini', apiKey: null, at: T1 } },
    ]);
    llm.given([openai]).when(configure({ baseUrl: 'https://api.openai.com/v2' })).then([
      { type: 'LlmConfigured', data: { provider: 'openai', baseUrl: 'https://api.openai.com/v2', model: 'gpt-4o-mini', apiKey: KEY, at: T1 } },
    ]);
  });

  it('given a stored key, when the builtin provider is chosen and then another address without the key, then that address is refused', () => {
    const builtin: LlmConfigEvent = { type: 'LlmConfigured', data: { provider: 'builtin', baseUrl: null, model: null, apiKey: KEY, at: T1 } };
    llm.given([openai]).when(configure({ provider: 'builtin', baseUrl: null, model: null })).then([builtin]);
    llm.given([openai, builtin]).when(configure({ baseUrl: 'https://attacker.example/v1' })).thenThrows('VALIDATION_ERROR');
  });
});
