import { describe, expect, it } from 'vitest';
import {
  billedUsage,
  costMicros,
  DEFAULT_MODEL_PRICE,
  DEFAULT_PRICE_TABLE,
  formatMicros,
  loadPricing,
  lookupPrice,
  parsePriceTable,
} from '../../../../src/domain/credits/decider.js';
import { DomainError } from '../../../../src/domain/errors.js';

const table = { ...DEFAULT_PRICE_TABLE };

describe('costMicros', () => {
  it('charges input and output tokens at the model price (micros per 1K tokens)', () => {
    // gpt-4o-mini: 150 in / 600 out per 1K → 1000 in + 500 out = 150 + 300
    expect(costMicros('gpt-4o-mini', { inputTokens: 1000, outputTokens: 500 }, table)).toBe(450);
    // gpt-4o: 2500 / 10000 per 1K
    expect(costMicros('gpt-4o', { inputTokens: 2000, outputTokens: 1000 }, table)).toBe(15_000);
  });

  it('rounds up so usage is never undercharged (one ceil on the total)', () => {
    // 1 token of gpt-4o-mini input = 0.15 micros → 1
    expect(costMicros('gpt-4o-mini', { inputTokens: 1, outputTokens: 0 }, table)).toBe(1);
    // 7 input tokens = 1.05 micros → 2
    expect(costMicros('gpt-4o-mini', { inputTokens: 7, outputTokens: 0 }, table)).toBe(2);
    // exact multiples are not bumped
    expect(costMicros('gpt-4o-mini', { inputTokens: 20, outputTokens: 0 }, table)).toBe(3);
    // one ceil on the sum: 0.5 + 0.5 = 1, not 2
    expect(costMicros('x', { inputTokens: 1, outputTokens: 1 }, {}, { inputMicrosPer1K: 500, outputMicrosPer1K: 500 })).toBe(1);
  });

  it('charges a model missing from the table at the default price, never free', () => {
    const usage = { inputTokens: 1000, outputTokens: 1000 };
    expect(costMicros('my-private-model', usage, table)).toBe(
      DEFAULT_MODEL_PRICE.inputMicrosPer1K + DEFAULT_MODEL_PRICE.outputMicrosPer1K,
    );
    expect(costMicros('my-private-model', usage, table, { inputMicrosPer1K: 1, outputMicrosPer1K: 2 })).toBe(3);
    expect(costMicros('my-private-model', { inputTokens: 1, outputTokens: 0 }, {}, { inputMicrosPer1K: 1, outputMicrosPer1K: 1 })).toBe(1);
  });

  it('costs nothing for zero usage (the builtin provider)', () => {
    expect(costMicros('builtin', { inputTokens: 0, outputTokens: 0 }, table)).toBe(0);
  });

  it('is exact for large volumes and rejects nonsense token counts', () => {
    expect(costMicros('gpt-4o', { inputTokens: 1_000_000_000, outputTokens: 1_000_000_000 }, table)).toBe(12_500_000_000);
    expect(costMicros('gpt-4o-mini', { inputTokens: 0.5, outputTokens: 0 }, table)).toBe(1);
    expect(() => costMicros('gpt-4o', { inputTokens: -1, outputTokens: 0 }, table)).toThrow(RangeError);
    expect(() => costMicros('gpt-4o', { inputTokens: Number.NaN, outputTokens: 0 }, table)).toThrow(RangeError);
  });
});

describe('lookupPrice', () => {
  it('resolves dated snapshots, router prefixes, Ollama tags and case', () => {
    expect(lookupPrice('gpt-4o-mini-2024-07-18', table)).toBe(table['gpt-4o-mini']);
    expect(lookupPrice('gpt-4o-2024-08-06', table)).toBe(table['gpt-4o']);
    expect(lookupPrice('openai/gpt-4.1-mini', table)).toBe(table['gpt-4.1-mini']);
    expect(lookupPrice('llama3.1:8b', table)).toBe(table['llama3.1']);
    expect(lookupPrice('GPT-5', table)).toBe(table['gpt-5']);
  });

  it('does not guess by prefix', () => {
    expect(lookupPrice('gpt-4o-mini-experimental', table)).toBeUndefined();
    expect(lookupPrice('toString', table)).toBeUndefined();
    expect(lookupPrice('__proto__', table)).toBeUndefined();
  });

  it('has defaults for the common models', () => {
    for (const model of ['gpt-4o-mini', 'gpt-4o', 'gpt-4.1', 'gpt-4.1-mini', 'gpt-4.1-nano', 'o4-mini', 'gpt-5', 'gpt-5-mini']) {
      const price = lookupPrice(model, table);
      expect(price, model).toBeDefined();
      expect(price!.inputMicrosPer1K).toBeGreaterThan(0);
      expect(price!.outputMicrosPer1K).toBeGreaterThan(0);
    }
  });
});

describe('parsePriceTable / loadPricing', () => {
  it('parses and lower-cases model keys', () => {
    expect(parsePriceTable('{"My-Model": {"inputMicrosPer1K": 10, "outputMicrosPer1K": 20}}')).toEqual({
      'my-model': { inputMicrosPer1K: 10, outputMicrosPer1K: 20 },
    });
  });

  it('rejects invalid JSON and invalid entries with a message naming the entry', () => {
    expect(() => parsePriceTable('{not json')).toThrow(/not valid JSON/);
    expect(() => parsePriceTable('[]')).toThrow(DomainError);
    expect(() => parsePriceTable('{"m": {"inputMicrosPer1K": -1, "outputMicrosPer1K": 2}}')).toThrow(/m\.inputMicrosPer1K/);
    expect(() => parsePriceTable('{"m": {"inputMicrosPer1K": 1.5, "outputMicrosPer1K": 2}}')).toThrow(DomainError);
    expect(() => parsePriceTable('{"m": {"inputMicrosPer1K": 1}}')).toThrow(/outputMicrosPer1K/);
    expect(() => parsePriceTable('{"m": {"inputMicrosPer1K": 1, "outputMicrosPer1K": 2, "extra": 1}}')).toThrow(DomainError);
    expect(() => parsePriceTable('{"__proto__": {"inputMicrosPer1K": 1, "outputMicrosPer1K": 2}}')).toThrow(/__proto__/);
  });

  it('overrides and extends the defaults; "*" sets the default price', () => {
    const pricing = loadPricing(
      JSON.stringify({
        'gpt-4o': { inputMicrosPer1K: 1, outputMicrosPer1K: 1 },
        'mistral-small': { inputMicrosPer1K: 100, outputMicrosPer1K: 300 },
        '*': { inputMicrosPer1K: 5000, outputMicrosPer1K: 5000 },
      }),
    );
    expect(pricing.table['gpt-4o']).toEqual({ inputMicrosPer1K: 1, outputMicrosPer1K: 1 });
    expect(pricing.table['mistral-small']).toEqual({ inputMicrosPer1K: 100, outputMicrosPer1K: 300 });
    expect(pricing.table['gpt-4o-mini']).toEqual(DEFAULT_PRICE_TABLE['gpt-4o-mini']);
    expect(pricing.table['*']).toBeUndefined();
    expect(pricing.defaultPrice).toEqual({ inputMicrosPer1K: 5000, outputMicrosPer1K: 5000 });
    expect(costMicros('unknown', { inputTokens: 1000, outputTokens: 0 }, pricing.table, pricing.defaultPrice)).toBe(5000);
  });

  it('uses the defaults when the variable is unset or empty', () => {
    for (const value of [undefined, '', '  ']) {
      const pricing = loadPricing(value);
      expect(pricing.table).toEqual(DEFAULT_PRICE_TABLE);
      expect(pricing.defaultPrice).toEqual(DEFAULT_MODEL_PRICE);
    }
  });
});

describe('formatMicros', () => {
  it('formats with two decimals, rounding toward zero', () => {
    expect(formatMicros(5_000_000)).toBe('5.00');
    expect(formatMicros(0)).toBe('0.00');
    expect(formatMicros(1_239_999)).toBe('1.23');
    expect(formatMicros(9_999)).toBe('0.00');
    expect(formatMicros(10_000)).toBe('0.01');
    expect(formatMicros(123_456_789_000)).toBe('123456.78');
  });

  it('handles negatives without a negative zero, and bigint', () => {
    expect(formatMicros(-1_239_999)).toBe('-1.23');
    expect(formatMicros(-5_000_000)).toBe('-5.00');
    expect(formatMicros(-1)).toBe('0.00');
    expect(formatMicros(12_345_678_901_234_567_890n)).toBe('12345678901234.56');
    expect(() => formatMicros(1.5)).toThrow(RangeError);
  });
});

describe('billedUsage: what an answer is charged for, whatever the company\u2019s endpoint reports', () => {
  const pricing = loadPricing();

  it('given an endpoint that reports no usage, then the estimate from the prompt and the answer is charged', () => {
    const billed = billedUsage('gpt-4o-mini', { inputTokens: 0, outputTokens: 0 }, { inputTokens: 300, outputTokens: 40 }, pricing);
    expect(billed).toEqual({ model: 'gpt-4o-mini', inputTokens: 300, outputTokens: 40, usageSource: 'estimated' });
    expect(costMicros(billed.model, billed, pricing.table, pricing.defaultPrice)).toBeGreaterThan(0);
  });

  it('given a report above the estimate, then the report is charged', () => {
    expect(billedUsage('gpt-4o-mini', { inputTokens: 1000, outputTokens: 100 }, { inputTokens: 300, outputTokens: 40 }, pricing)).toEqual({
      model: 'gpt-4o-mini',
      inputTokens: 1000,
      outputTokens: 100,
      usageSource: 'reported',
    });
  });

  it('compares what each would cost: fewer output tokens can outweigh more input tokens', () => {
    // gpt-4o-mini: output costs 4× input. Reported 500/10 = 81 micros; estimated 100/100 = 75 micros.
    expect(billedUsage('gpt-4o-mini', { inputTokens: 500, outputTokens: 10 }, { inputTokens: 100, outputTokens: 100 }, pricing).usageSource).toBe('reported');
    expect(billedUsage('gpt-4o-mini', { inputTokens: 400, outputTokens: 10 }, { inputTokens: 100, outputTokens: 100 }, pricing).usageSource).toBe('estimated');
  });

  it('prices the configured model, not the model the endpoint says answered', () => {
    const billed = billedUsage('gpt-4o', { inputTokens: 1000, outputTokens: 1000 }, { inputTokens: 10, outputTokens: 10 }, pricing);
    expect(billed.model).toBe('gpt-4o');
    expect(costMicros(billed.model, billed, pricing.table, pricing.defaultPrice)).toBe(12_500);
  });
});
