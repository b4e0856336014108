import type { Decider } from '../decider.js';
import { DomainError } from '../errors.js';
import type { CreditEvent } from './events.js';
import { evolveCredits, initialCreditState, type CreditState } from './state.js';
import { z } from 'zod';

export type CreditCommand =
  | { type: 'GrantCredits'; amountMicros: number; reason: string; grantedBy: string | null; now: string }
  | {
      type: 'ConsumeCredits';
      costMicros: number;
      model: string;
      inputTokens: number;
      outputTokens: number;
      usageSource?: 'reported' | 'estimated';
      conversationId: string;
      /** An agent-playground answer (conversationId is then ''). */
      playgroundSessionId?: string;
      replyId: string;
      replayId?: string;
      testRunId?: string;
      testAnswer?: true;
      now: string;
    };

export const creditsDecider: Decider<CreditCommand, CreditEvent, CreditState> = {
  initialState: initialCreditState,
  evolve: evolveCredits,
  decide(command, state) {
    switch (command.type) {
      case 'GrantCredits':
        if (!Number.isSafeInteger(command.amountMicros) || command.amountMicros <= 0) {
          throw new DomainError('VALIDATION_ERROR', 'amountMicros must be a positive integer');
        }
        return [
          { type: 'CreditsGranted', data: { amountMicros: command.amountMicros, reason: command.reason, grantedBy: command.grantedBy, at: command.now } },
        ];
      case 'ConsumeCredits': {
        if (state.chargedReplies.includes(command.replyId)) return [];
        // The balance never goes below zero: the last reply is charged what is left.
        const amount = Math.min(command.costMicros, Math.max(0, state.balanceMicros));
        return [
          {
            type: 'CreditsConsumed',
            data: {
              amountMicros: amount,
              model: command.model,
              inputTokens: command.inputTokens,
              outputTokens: command.outputTokens,
              ...(command.usageSource ? { usageSource: command.usageSource } : {}),
              conversationId: command.conversationId,
              ...(command.playgroundSessionId !== undefined ? { playgroundSessionId: command.playgroundSessionId } : {}),
              replyId: command.replyId,
              ...(command.replayId ? { replayId: command.replayId } : {}),
              ...(command.testRunId ? { testRunId: command.testRunId } : {}),
              ...(command.testAnswer ? { testAnswer: true as const } : {}),
              at: command.now,
            },
          },
        ];
      }
    }
  },
};

export const creditsStream = (companyId: string) => `credits-${companyId}`;
export const companyIdOfCreditsStream = (stream: string) => stream.slice('credits-'.length);

/**
 * LLM pricing, pure. Money is integer micro-dollars (1 USD = 1_000_000 micros); prices are integer
 * micros per 1,000 tokens (USD per 1M tokens × 1000: $0.15 / 1M tokens = 150 micros / 1K).
 * API.md: every LLM reply is charged from its token usage at the model's price; a model missing from the
 * table is charged at the default price, never free; the builtin provider (which reports 0/0 usage) costs
 * nothing. The usage and the model are what billedUsage says, not what the company's endpoint reports.
 */

export interface ModelPrice {
  inputMicrosPer1K: number;
  outputMicrosPer1K: number;
}

export type PriceTable = { [model: string]: ModelPrice };

export interface TokenUsage {
  inputTokens: number;
  outputTokens: number;
}

/**
 * Public list prices (USD per 1M tokens, input / output) at the time of writing. Keys are lower-case.
 * Override or extend with LLM_PRICE_TABLE.
 */
/** Average characters per token, for estimating usage nobody reported (a server that omits it, a stopped stream). */
export const CHARS_PER_TOKEN = 4;

/** Usage estimated from characters, rounded up: a call whose usage is unknown is still charged, never free. */
export const estimateUsage = (promptChars: number, outputChars: number): TokenUsage => ({
  inputTokens: Math.ceil(promptChars / CHARS_PER_TOKEN),
  outputTokens: Math.ceil(outputChars / CHARS_PER_TOKEN),
});

/** Where charged token counts come from: the LLM endpoint's report, or the service's own estimate. */
export type UsageSource = 'reported' | 'estimated';

export interface BilledUsage extends TokenUsage {
  /** The model whose price is charged: the one the company configured, whatever the endpoint says answered. */
  model: string;
  usageSource: UsageSource;
}

/**
 * What an answer is charged for, so the company's own endpoint cannot zero or cheapen it: the configured model's
 * price, on the endpoint's reported usage or on the estimate from the prompt and the answer (estimateUsage),
 * whichever costs more (the report on a tie). The model the endpoint reports is not trusted for the price.
 */
export function billedUsage(configuredModel: string, reported: TokenUsage, estimated: TokenUsage, pricing: Pricing): BilledUsage {
  const cost = (usage: TokenUsage) => costMicros(configuredModel, usage, pricing.table, pricing.defaultPrice);
  const useEstimate = cost(estimated) > cost(reported);
  const usage = useEstimate ? estimated : reported;
  return { model: configuredModel, inputTokens: usage.inputTokens, outputTokens: usage.outputTokens, usageSource: useEstimate ? 'estimated' : 'reported' };
}

export const DEFAULT_PRICE_TABLE: Readonly<PriceTable> = Object.freeze({
  'gpt-4o-mini': { inputMicrosPer1K: 150, outputMicrosPer1K: 600 }, // $0.15 / $0.60
  'gpt-4o': { inputMicrosPer1K: 2500, outputMicrosPer1K: 10000 }, // $2.50 / $10
  'gpt-4.1': { inputMicrosPer1K: 2000, outputMicrosPer1K: 8000 }, // $2 / $8
  'gpt-4.1-mini': { inputMicrosPer1K: 400, outputMicrosPer1K: 1600 }, // $0.40 / $1.60
  'gpt-4.1-nano': { inputMicrosPer1K: 100, outputMicrosPer1K: 400 }, // $0.10 / $0.40
  'o4-mini': { inputMicrosPer1K: 1100, outputMicrosPer1K: 4400 }, // $1.10 / $4.40
  'o3-mini': { inputMicrosPer1K: 1100, outputMicrosPer1K: 4400 }, // $1.10 / $4.40
  o3: { inputMicrosPer1K: 2000, outputMicrosPer1K: 8000 }, // $2 / $8
  'gpt-5': { inputMicrosPer1K: 1250, outputMicrosPer1K: 10000 }, // $1.25 / $10
  'gpt-5-mini': { inputMicrosPer1K: 250, outputMicrosPer1K: 2000 }, // $0.25 / $2
  'gpt-5-nano': { inputMicrosPer1K: 50, outputMicrosPer1K: 400 }, // $0.05 / $0.40
  'gpt-3.5-turbo': { inputMicrosPer1K: 500, outputMicrosPer1K: 1500 }, // $0.50 / $1.50
  // Self-hosted open models (Ollama, vLLM): no provider bill, but the service still charges a small
  // nominal price for them (never free). Ollama tags ("llama3.1:8b") resolve to these entries.
  'llama3.1': { inputMicrosPer1K: 20, outputMicrosPer1K: 60 },
  'llama3.2': { inputMicrosPer1K: 20, outputMicrosPer1K: 60 },
  'llama3.3': { inputMicrosPer1K: 20, outputMicrosPer1K: 60 },
});

/**
 * Price for models not in the table: deliberately not cheap (gpt-4o level) so an unknown model is
 * never undercharged. Override with the "*" entry of LLM_PRICE_TABLE.
 */
export const DEFAULT_MODEL_PRICE: Readonly<ModelPrice> = Object.freeze({
  inputMicrosPer1K: 2500,
  outputMicrosPer1K: 10000,
});

/**
 * The table entry for a model name as providers report it: exact (case-insensitive), then without a
 * dated snapshot suffix ("gpt-4o-mini-2024-07-18" → "gpt-4o-mini"), then without a router prefix
 * ("openai/gpt-4o") or an Ollama tag ("llama3.1:8b"). No general prefix matching: "gpt-4o-mini-foo"
 * does not silently get gpt-4o-mini's price. Undefined when none matches.
 */
export function lookupPrice(model: string, table: PriceTable): ModelPrice | undefined {
  const candidates: string[] = [];
  const add = (name: string) => {
    if (name.length > 0 && !candidates.includes(name)) candidates.push(name);
  };
  const base = model.trim().toLowerCase();
  add(base);
  const withoutRouter = base.includes('/') ? base.slice(base.lastIndexOf('/') + 1) : base;
  for (const name of [base, withoutRouter]) {
    add(name);
    const withoutTag = name.includes(':') ? name.slice(0, name.indexOf(':')) : name;
    add(withoutTag);
    for (const n of [name, withoutTag]) {
      add(n.replace(/-\d{4}-\d{2}-\d{2}$/, ''));
      add(n.replace(/-\d{4}$/, '')); // older snapshots: "gpt-4-0613"
    }
  }
  for (const name of candidates) {
    if (Object.prototype.hasOwnProperty.call(table, name)) return table[name];
  }
  return undefined;
}

/**
 * Cost of one completion in integer micros, rounded UP (one ceil on the total, so the customer is never
 * undercharged and overcharged by less than one micro). Zero usage costs 0 (the builtin provider).
 * Non-integer token counts are rounded up; negative or non-finite ones are a programming error.
 */
export function costMicros(
  model: string,
  usage: TokenUsage,
  table: PriceTable,
  defaultPrice: ModelPrice = DEFAULT_MODEL_PRICE,
): number {
  const input = checkedTokens(usage.inputTokens, 'inputTokens');
  const output = checkedTokens(usage.outputTokens, 'outputTokens');
  if (input === 0n && output === 0n) return 0;
  const price = lookupPrice(model, table) ?? defaultPrice;
  // BigInt keeps the product exact whatever the volumes; prices are validated integers.
  const numerator =
    input * BigInt(Math.ceil(price.inputMicrosPer1K)) + output * BigInt(Math.ceil(price.outputMicrosPer1K));
  const micros = (numerator + 999n) / 1000n;
  return Number(micros);
}

function checkedTokens(value: number, field: string): bigint {
  if (!Number.isFinite(value) || value < 0) {
    throw new RangeError(`${field} must be a finite non-negative number, got ${value}`);
  }
  return BigInt(Math.ceil(value));
}

const modelPriceSchema = z.strictObject({
  inputMicrosPer1K: z.number().int().nonnegative().max(1_000_000_000),
  outputMicrosPer1K: z.number().int().nonnegative().max(1_000_000_000),
});

const priceTableSchema = z.record(z.string().trim().min(1), modelPriceSchema);

/**
 * Parses the LLM_PRICE_TABLE environment variable: a JSON object
 * `{"<model>": {"inputMicrosPer1K": int, "outputMicrosPer1K": int}, ...}`; the key "*" sets the default
 * price for unlisted models. Keys are lower-cased. Throws DomainError VALIDATION_ERROR naming the
 * offending entry.
 */
export function parsePriceTable(json: string): PriceTable {
  let raw: unknown;
  try {
    raw = JSON.parse(json);
  } catch (error) {
    throw new DomainError('VALIDATION_ERROR', `LLM_PRICE_TABLE is not valid JSON: ${(error as Error).message}`);
  }
  if (raw !== null && typeof raw === 'object') {
    const reserved = Object.keys(raw).find((k) => ['__proto__', 'constructor', 'prototype'].includes(k.trim().toLowerCase()));
    if (reserved !== undefined) {
      throw new DomainError('VALIDATION_ERROR', `LLM_PRICE_TABLE has a reserved model name: ${reserved}`);
    }
  }
  const parsed = priceTableSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue && issue.path.length > 0 ? issue.path.join('.') : '(root)';
    throw new DomainError('VALIDATION_ERROR', `LLM_PRICE_TABLE is invalid at ${where}: ${issue?.message ?? 'invalid'}`);
  }
  const table: PriceTable = {};
  for (const [model, price] of Object.entries(parsed.data)) table[model.trim().toLowerCase()] = price;
  return table;
}

export interface Pricing {
  table: PriceTable;
  defaultPrice: ModelPrice;
}

/** The defaults, overridden/extended by LLM_PRICE_TABLE when set (its "*" entry replaces the default price). */
export function loadPricing(priceTableJson?: string): Pricing {
  const overrides = priceTableJson && priceTableJson.trim().length > 0 ? parsePriceTable(priceTableJson) : {};
  const { '*': defaultOverride, ...models } = overrides;
  return {
    table: { ...DEFAULT_PRICE_TABLE, ...models },
    defaultPrice: defaultOverride ?? { ...DEFAULT_MODEL_PRICE },
  };
}

/**
 * Display string for micros: two decimals, rounded toward zero, "-" for negatives, no negative zero:
 * 5_000_000 → "5.00", 1_239_999 → "1.23", -1_239_999 → "-1.23", -1 → "0.00".
 */
export function formatMicros(micros: number | bigint): string {
  if (typeof micros === 'number' && !Number.isSafeInteger(micros)) {
    throw new RangeError(`micros must be a safe integer, got ${micros}`);
  }
  const value = BigInt(micros);
  const negative = value < 0n;
  const cents = (negative ? -value : value) / 10_000n; // BigInt division truncates toward zero
  const whole = cents / 100n;
  const fraction = (cents % 100n).toString().padStart(2, '0');
  return `${negative && cents > 0n ? '-' : ''}${whole}.${fraction}`;
}
