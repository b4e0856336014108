import { randomUUID } from 'node:crypto';
import { chargeDecider, chargeStream } from '../../domain/credits/charge/decider.js';
import type { ChargeState } from '../../domain/credits/charge/state.js';
import { creditsDecider, creditsStream, type CreditCommand, costMicros, type Pricing, type UsageSource } from '../../domain/credits/decider.js';
import type { CreditEvent } from '../../domain/credits/events.js';
import type { CreditState } from '../../domain/credits/state.js';
import { EventIdConflictError, WrongExpectedRevisionError } from '../../ports/errors.js';
import type { EventMetadata, EventStore, ExpectedRevision } from '../../ports/eventStore.js';
import { deterministicId } from '../hashing.js';
import type { CommandDeps } from '../deps.js';
import { chargedAt, loadChargeGuard, loadCredits } from './streamReads.js';

/** What an LLM call answered: a customer's conversation, or a question in the agent playground. */
export type UsageFor = { conversationId: string; playgroundSessionId?: undefined } | { playgroundSessionId: string; conversationId?: undefined };

export type Usage = UsageFor & {
  companyId: string;
  /** The reply (or playground answer) the LLM call produced: charges are idempotent per reply. */
  replyId: string;
  /** A replay evaluation's answer (its replyId is the replayed answer's id; conversationId ''): no customer's reply. */
  replayId?: string;
  /** A test case's answer or judge call (replyId: the answer's or judgement's id; conversationId ''). */
  testRunId?: string;
  /** With testRunId: the call answered the case (absent: it judged it). */
  testAnswer?: true;
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
  // One company's charges in this process are applied by one runner at a time (no conflict storm on its credits
  // stream), and those that wait meanwhile go together in its next append (see chargeTogether).
  return new Promise((resolve, reject) => enqueue(deps, { usage, command: consumeCommand(deps, usage, cost), resolve, reject }));
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
    ...(usage.testRunId ? { testRunId: usage.testRunId } : {}),
    ...(usage.testAnswer ? { testAnswer: true as const } : {}),
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

interface Pending {
  usage: Usage;
  command: Extract<CreditCommand, { type: 'ConsumeCredits' }>;
  resolve(result: ChargeResult): void;
  reject(err: unknown): void;
}

/** Charges in one append at most: well under EventStoreDB's default MaxAppendSize (1 MiB). */
const MAX_BATCH = 100;

type CompanyQueue = { waiting: Pending[]; running: boolean };
const queues = new WeakMap<EventStore, Map<string, CompanyQueue>>();

function enqueue(deps: CommandDeps, pending: Pending): void {
  let byCompany = queues.get(deps.eventStore);
  if (!byCompany) queues.set(deps.eventStore, (byCompany = new Map()));
  const key = pending.usage.companyId;
  let queue = byCompany.get(key);
  if (!queue) byCompany.set(key, (queue = { waiting: [], running: false }));
  queue.waiting.push(pending);
  if (!queue.running) void drain(deps, byCompany, key, queue);
}

async function drain(deps: CommandDeps, byCompany: Map<string, CompanyQueue>, key: string, queue: CompanyQueue): Promise<void> {
  queue.running = true;
  while (queue.waiting.length > 0) {
    const batch = queue.waiting.splice(0, MAX_BATCH);
    await chargeTogether(deps, batch).catch((err: unknown) => batch.forEach((p) => p.reject(err)));
  }
  queue.running = false;
  byCompany.delete(key);
}

/**
 * Charges several replies of one company in one append to its credits stream, keeping chargeOnce's guarantee
 * for each: before the append, each reply's guard records the revision its own charge will occupy (the
 * batch's events take consecutive revisions), so a later call finds each charge where its guard says, or
 * knows it never landed. Under a flood a company's charges take one credits append per batch instead of one
 * per reply. Nothing is answered before the append's outcome is known.
 */
async function chargeTogether(deps: CommandDeps, batch: Pending[]): Promise<void> {
  const store = deps.eventStore;
  const companyId = batch[0]!.usage.companyId;
  const metadata: EventMetadata = { companyId, actor: 'ai-agent' };
  const settled = new Set<Pending>();
  const settle = (p: Pending, result: ChargeResult) => (settled.add(p), p.resolve(result));
  for (let attempt = 1; ; attempt++) {
    const open = batch.filter((p) => !settled.has(p));
    if (open.length === 0) return;
    const guards = await Promise.all(open.map((p) => loadChargeGuard(store, p.usage.replyId)));
    const unpaid: Array<{ p: Pending; guard: (typeof guards)[number] }> = [];
    for (const [i, p] of open.entries()) {
      const last = guards[i]!.state.debitRevision;
      if (last !== null && (await chargedAt(store, companyId, last, chargeIdOf(p.usage.replyId)))) settle(p, await alreadyCharged(store, companyId));
      else unpaid.push({ p, guard: guards[i]! });
    }
    if (unpaid.length === 0) return;
    const credits = await loadCredits(store, companyId);
    // A reply whose recorded revision the credits stream has not reached yet may still land there (an attempt in
    // flight elsewhere): only an attempt at that same revision is safe, which is chargeOnce's rule, not a batch slot.
    const pinned = unpaid.filter((u) => u.guard.state.debitRevision !== null && u.guard.state.debitRevision > credits.revision);
    for (const { p } of pinned) settle(p, await chargeOnce(deps, p.usage, p.command));
    if (pinned.length > 0) continue;
    const plan = planCharges(unpaid, credits.state);
    if (plan.charges.length === 0) return plan.repeats.forEach((p) => settle(p, { events: [], balanceMicros: credits.state.balanceMicros, duplicate: true }));
    try {
      await Promise.all(
        plan.charges.map((c, k) => recordAttempt(store, c.p.usage, c.guard, credits.revision + 1n + BigInt(k), { metadata, now: c.p.command.now })),
      );
      const appended = await store.append(
        creditsStream(companyId),
        plan.charges.flatMap((c) => c.events.map((e) => ({ id: chargeIdOf(c.p.usage.replyId), type: e.type, data: e.data, metadata }))),
        expectedAfter(credits.revision),
      );
      const balanceMicros = plan.state.balanceMicros;
      plan.charges.forEach((c) => settle(c.p, appended.duplicate ? { events: [], balanceMicros, duplicate: true } : { events: c.events, balanceMicros: c.balanceMicros }));
      plan.repeats.forEach((p) => settle(p, { events: [], balanceMicros, duplicate: true }));
      return;
    } catch (err) {
      // A store that keeps ids unique (SQLite) refused a charge stored before: each goes its own way.
      if (err instanceof EventIdConflictError) {
        for (const p of open.filter((q) => !settled.has(q))) settle(p, await chargeOnce(deps, p.usage, p.command));
        return;
      }
      if (!(err instanceof WrongExpectedRevisionError) || attempt >= MAX_ATTEMPTS) throw err;
      await new Promise((r) => setTimeout(r, Math.random() * 5 * attempt));
    }
  }
}

/** Decides each charge on the state its predecessors in the batch leave; a reply charged already (or twice in the batch) is a repeat. */
function planCharges<G>(unpaid: Array<{ p: Pending; guard: G }>, initial: CreditState) {
  let state = initial;
  const charges: Array<{ p: Pending; guard: G; events: CreditEvent[]; balanceMicros: number }> = [];
  const repeats: Pending[] = [];
  for (const { p, guard } of unpaid) {
    const events = creditsDecider.decide(p.command, state);
    if (events.length === 0) {
      repeats.push(p);
      continue;
    }
    state = events.reduce(creditsDecider.evolve, state);
    charges.push({ p, guard, events, balanceMicros: state.balanceMicros });
  }
  return { charges, repeats, state };
}
