import { endExpiredWait } from '../commands/conversations/actionApprovals.js';
import type { CommandDeps } from '../commands/deps.js';
import type { ReadStore } from '../ports/readStore.js';
import type { PendingActionCallDoc } from '../projections/pendingActionCalls/pendingActionCallsProjection.js';
import { pendingCallsByDeadline } from '../projections/pendingActionCalls/queries.js';

export interface ActionExpiryDeps extends CommandDeps {
  readStore: ReadStore;
  sweepIntervalMs: number;
}

/** Waiting calls looked at per sweep at most (a page at a time): one sweep is bounded work, whatever the backlog. */
const SWEEP_MAX = 500;
const PAGE = 100;
/** Calls whose end recorded nothing (decided meanwhile, superseded): skipped by later sweeps until the read model drops them. Bounded. */
const SETTLED_KEPT = 10_000;

/**
 * The clock of action calls that wait: a periodic sweep of the pending-calls read model, earliest deadline first,
 * that ends each wait whose `expiresAt` has passed (an approval expires into a handoff, a confirmation met with
 * silence is declined). The deadlines live in the read model, so a restart loses none; each end is a decision on
 * the conversation's own stream, idempotent, so two instances sweeping at once record it once.
 */
export function startActionExpiry(deps: ActionExpiryDeps): { stop(): Promise<void> } {
  const settled = new Set<string>();
  let sweeping: Promise<void> | null = null;
  const timer = setInterval(() => {
    sweeping ??= sweepExpiredCalls(deps, settled)
      .then(() => {})
      .catch((err) => deps.logger.error({ err }, 'the action expiry sweep failed: the next one retries'))
      .finally(() => {
        sweeping = null;
      });
  }, deps.sweepIntervalMs);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await sweeping;
    },
  };
}

/** One pass: every due call, each company's in turn (one company's backlog does not hold another's deadlines back). */
export async function sweepExpiredCalls(deps: ActionExpiryDeps, settled = new Set<string>()): Promise<number> {
  const now = deps.clock.now().getTime();
  const due: PendingActionCallDoc[] = [];
  let cursor: string | null = null;
  do {
    const page = await pendingCallsByDeadline(deps.readStore, PAGE, cursor);
    const upTo = page.items.findIndex((d) => Date.parse(d.expiresAt) > now);
    due.push(...(upTo === -1 ? page.items : page.items.slice(0, upTo)).filter((d) => !settled.has(d.callId)));
    cursor = upTo === -1 ? page.nextCursor : null;
  } while (cursor && due.length < SWEEP_MAX);
  let ended = 0;
  for (const doc of inCompanyTurns(due.slice(0, SWEEP_MAX))) {
    const result = await endExpiredWait(deps, doc.conversationId, doc.callId, doc.mode).catch((err: unknown) => {
      deps.logger.warn({ err, conversationId: doc.conversationId, callId: doc.callId }, 'an expired action call could not be ended: the next sweep retries');
      return null;
    });
    if (result && result.events.length > 0) {
      ended++;
      deps.logger.info({ conversationId: doc.conversationId, callId: doc.callId, mode: doc.mode }, doc.mode === 'approve' ? 'action approval expired: handed off' : 'action confirmation declined for silence');
    } else if (result) {
      if (settled.size >= SETTLED_KEPT) settled.clear();
      settled.add(doc.callId);
    }
  }
  return ended;
}

/** Round robin over companies, each company's calls earliest deadline first. */
function inCompanyTurns(calls: PendingActionCallDoc[]): PendingActionCallDoc[] {
  const byCompany = new Map<string, PendingActionCallDoc[]>();
  for (const c of calls) {
    const queue = byCompany.get(c.companyId);
    if (queue) queue.push(c);
    else byCompany.set(c.companyId, [c]);
  }
  const queues = [...byCompany.values()];
  const out: PendingActionCallDoc[] = [];
  for (let i = 0; out.length < calls.length; i++) for (const q of queues) if (q[i]) out.push(q[i]!);
  return out;
}
