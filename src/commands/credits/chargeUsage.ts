import { randomUUID } from 'node:crypto';
import { chargeDecider, chargeStream } from '../../domain/credits/charge/decider.js';
import type { ChargeState } from '../../domain/credits/charge/state.js';
import { creditsDecider, creditsStream, type CreditCommand } from '../../domain/credits/decider.js';
import type { CreditEvent } from '../../domain/credits/events.js';
import { costMicros, type Pricing, type UsageSource } from '../../domain/credits/pricing.js';
import { EventIdConflictError, WrongExpectedRevisionError } from '../../ports/errors.js';
import type { EventMetadata, EventStore, ExpectedRevision } from '../../ports/eventStore.js';
import { deterministicId } from '../hashing.js';
import type { CommandDeps } from '../deps.js';
import { chargedAt, loadChargeGuard, loadCredits } from './queries.js';

/** What an LLM call answered: a customer's conversation, or a question in the agent playground. */
export type UsageFor = { conversationId: string; playgroundSessionId?: undefined } | { playgroundSessionId: string; conversationId?: undefined };

export type Usage = UsageFor & {
  companyId: string;
  /** The reply (or playground answer) the LLM call produced: charges are idempotent per reply. */
  replyId: string;
  /** A replay evaluation's answer (its replyId is the replayed answer's id; conversationId ''): no customer's reply. */
  replayId?: string;
  /** The model the company configured (its price is charged), not what the endpoint says answered. */
  model: string;
  inputTokens: number;
  outputTokens: number;
  /** Whether the token counts are the endpoint's or the service's own estimate (billedUsage). Absent: reported. */
  usageSource?: UsageSource;
};

export interface ChargeResult {
  /** The charge appended now; empty when the reply was charged already. */
  events: CreditEvent[];
  balanceMicros: number;
  /** True when the reply had been charged before: nothing was appended. */
  duplicate?: boolean;
}

/** Conflicts on the credits stream (another instance charging the same company) before giving up. */
const MAX_ATTEMPTS = 50;

/**
 * Charges one LLM call at the model's price, exactly once per reply on every event store; free calls (the
 * builtin provider uses no tokens) leave no entry.
 *
 * The charge is appended to the company's credits stream with an expected revision, so it lands at that one
 * revision or nowhere, and with an id derived from the reply. Before each attempt that revision is recorded in
 * the reply's guard stream (`charge-<replyId>`, appended at the guard revision just read, so attempts are
 * serialised). Any later call (a redelivery, a retry after a crash, however late) first reads the credits
 * event at the last recorded revision: if it is the charge, the reply is paid. If the credits stream has not
 * reached it, the next attempt goes to that same revision (and at most one of the two lands); if another event
 * took it, that attempt can never land, and a new revision is recorded. So at most one charge lands, and a
 * crash anywhere leaves a state the next call completes: nothing relies on the store refusing a repeated id,
 * which EventStoreDB does only for a retry at the same expected revision.
 */
export async function chargeUsage(deps: CommandDeps & { pricing: Pricing }, usage: Usage): Promise<ChargeResult | null> {
  const cost = costMicros(usage.model, usage, deps.pricing.table, deps.pricing.defaultPrice);
  if (cost === 0) return null;
  // One company's charges in this process go one at a time: no conflict storm on its credits stream.
  return oneAtATime(deps.eventStore, creditsStream(usage.companyId), () => chargeOnce(deps, usage, consumeCommand(deps, usage, cost)));
}

function consumeCommand(deps: CommandDeps, usage: Usage, cost: number): Extract<CreditCommand, { type: 'ConsumeCredits' }> {
  return {
    type: 'ConsumeCredits',
    costMicros: cost,
    model: usage.model,
    inputTokens: usage.inputTokens,
    outputTokens: usage.outputTokens,
    ...(usage.usageSource ? { usageSource: usage.usageSource } : {}),
    // A playground answer has no conversation: '' keeps the event's field a string for every reader.
    conversationId: usage.conversationId ?? '',
    ...(usage.playgroundSessionId !== undefined ? { playgroundSessionId: usage.playgroundSessionId } : {}),
    replyId: usage.replyId,
    ...(usage.replayId ? { replayId: usage.replayId } : {}),
    now: deps.clock.now().toISOString(),
  };
}

/** The charge of one reply has an id derived from the reply. */
export const chargeIdOf = (replyId: string) => deterministicId(`charge:${replyId}:CreditsConsumed`);

async function chargeOnce(deps: CommandDeps, usage: Usage, command: Extract<CreditCommand, { type: 'ConsumeCredits' }>): Promise<ChargeResult> {
  const store = deps.eventStore;
  const chargeId = chargeIdOf(usage.replyId);
  const metadata: EventMetadata = { companyId: usage.companyId, actor: 'ai-agent' };
  for (let attempt = 1; ; attempt++) {
    const guard = await loadChargeGuard(store, usage.replyId);
    const last = guard.state.debitRevision;
    if (last !== null && (await chargedAt(store, usage.companyId, last, chargeId))) return alreadyCharged(store, usage.companyId);
    const credits = await loadCredits(store, usage.companyId);
    // Recent charges are known to the credits state itself.
    const events = creditsDecider.decide(command, credits.state);
    if (events.length === 0) return { events: [], balanceMicros: credits.state.balanceMicros, duplicate: true };
    try {
      await recordAttempt(store, usage, guard, credits.revision + 1n, { metadata, now: command.now });
      const appended = await store.append(
        creditsStream(usage.companyId),
        events.map((e) => ({ id: chargeId, type: e.type, data: e.data, metadata })),
        expectedAfter(credits.revision),
      );
      if (appended.duplicate) return alreadyCharged(store, usage.companyId);
      return { events, balanceMicros: events.reduce(creditsDecider.evolve, credits.state).balanceMicros };
    } catch (err) {
      // A store that keeps ids unique (SQLite) refuses a charge stored before the guard existed.
      if (err instanceof EventIdConflictError) return alreadyCharged(store, usage.companyId);
      // Another instance wrote the guard or the credits stream meanwhile: look again.
      if (!(err instanceof WrongExpectedRevisionError) || attempt >= MAX_ATTEMPTS) throw err;
      await new Promise((r) => setTimeout(r, Math.random() * 5 * attempt));
    }
  }
}

/** Records in the guard where this attempt puts the charge, at the guard revision that was checked. */
async function recordAttempt(
  store: EventStore,
  usage: Usage,
  guard: { state: ChargeState; revision: bigint },
  debitRevision: bigint,
  { metadata, now }: { metadata: EventMetadata; now: string },
): Promise<void> {
  const recorded = chargeDecider.decide(
    { type: 'AttemptCharge', replyId: usage.replyId, companyId: usage.companyId, debitRevision, now },
    guard.state,
  );
  if (recorded.length === 0) return;
  await store.append(
    chargeStream(usage.replyId),
    recorded.map((e) => ({ id: randomUUID(), type: e.type, data: e.data, metadata })),
    expectedAfter(guard.revision),
  );
}

async function alreadyCharged(store: EventStore, companyId: string): Promise<ChargeResult> {
  const { state } = await loadCredits(store, companyId);
  return { events: [], balanceMicros: state.balanceMicros, duplicate: true };
}

const expectedAfter = (revision: bigint): ExpectedRevision => (revision < 0n ? 'no_stream' : revision);

const chains = new WeakMap<EventStore, Map<string, Promise<void>>>();

/** Runs `run` after every earlier call with the same store and key (in this process) has settled. */
function oneAtATime<T>(store: EventStore, key: string, run: () => Promise<T>): Promise<T> {
  let byKey = chains.get(store);
  if (!byKey) chains.set(store, (byKey = new Map()));
  const result = (byKey.get(key) ?? Promise.resolve()).then(run);
  const settled = result.then(
    () => undefined,
    () => undefined,
  );
  byKey.set(key, settled);
  void settled.then(() => {
    if (byKey.get(key) === settled) byKey.delete(key);
  });
  return result;
}
