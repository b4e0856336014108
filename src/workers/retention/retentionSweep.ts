import { conversationStream } from '../../domain/conversations/decider.js';
import { loadCustomer } from '../../commands/customers/customers.js';
import { eraseCustomer } from '../../commands/customers/eraseCustomer.js';
import type { CommandDeps } from '../../commands/deps.js';
import type { PersonalDataKeys } from '../../ports/personalDataKeys.js';
import type { ReadStore } from '../../ports/readStore.js';
import type { RetainedConversationDoc } from '../../projections/retention/retentionProjection.js';
import { oldestClosedConversations, retentionPolicies } from '../../projections/retention/queries.js';

export interface RetentionSweepDeps extends CommandDeps {
  readStore: ReadStore;
  personalKeys: PersonalDataKeys;
  sweepIntervalMs: number;
  /** Called after a pass that erased someone (the API's erasure sweep then purges the read models). */
  onErased?: () => void;
}

/**
 * Bounded work per pass, whatever the number of companies or conversations: at most `companies` policies are
 * looked at (the next ones on the next pass, round the list), each for at most `perCompany` of its oldest closed
 * conversations, and at most `erasures` customers are erased. A backlog drains over several passes.
 */
export const RETENTION_SWEEP_LIMITS = { companies: 50, perCompany: 10, erasures: 100 } as const;
const DAY_MS = 86_400_000;

/** Where the next pass starts in the list of companies with a period (kept between passes, lost on restart: harmless). */
export interface RetentionCursor {
  cursor: string | null;
}

/**
 * The clock of retention (docs/erasure.md): on the processor's timer, each company's conversations closed more
 * than its period ago are erased, with their customer, by the same erasure as `DELETE /api/customers/:id`
 * (CustomerErased by `system:retention`, the keys deleted). The close times live in a read model, so a
 * restart loses none; an erasure is idempotent, so two instances sweeping at once record it once.
 */
export function startRetentionSweep(deps: RetentionSweepDeps): { stop(): Promise<void> } {
  const position: RetentionCursor = { cursor: null };
  let sweeping: Promise<unknown> | null = null;
  const timer = setInterval(() => {
    sweeping ??= sweepRetention(deps, position)
      .catch((err) => deps.logger.error({ err }, 'the retention sweep failed: the next pass retries'))
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

/** One pass: how many customers it erased. */
export async function sweepRetention(deps: RetentionSweepDeps, position: RetentionCursor = { cursor: null }): Promise<number> {
  const now = deps.clock.now().getTime();
  const policies = await retentionPolicies(deps.readStore, RETENTION_SWEEP_LIMITS.companies, position.cursor);
  position.cursor = policies.nextCursor; // null: the next pass starts over
  let erased = 0;
  for (const policy of policies.items) {
    if (policy.conversationDays === null) continue;
    const cutoff = now - policy.conversationDays * DAY_MS;
    const oldest = await oldestClosedConversations(deps.readStore, policy.companyId, RETENTION_SWEEP_LIMITS.perCompany);
    for (const doc of oldest.items) {
      // Closed longest ago first: the first one inside the period ends this company's turn.
      if (doc.closedAt === null || Date.parse(doc.closedAt) > cutoff) break;
      if (erased >= RETENTION_SWEEP_LIMITS.erasures) break;
      const done = await eraseExpired(deps, doc, policy.conversationDays, cutoff).catch((err: unknown) => {
        deps.logger.warn({ err, conversationId: doc.id }, 'retention: an erasure failed, the next pass retries');
        return false;
      });
      if (done) erased++;
    }
  }
  if (erased > 0) {
    deps.logger.info({ erased }, 'retention: customers whose conversations were closed longer than their company keeps them erased');
    deps.onErased?.();
  }
  return erased;
}

async function eraseExpired(deps: RetentionSweepDeps, doc: RetainedConversationDoc, days: number, cutoff: number): Promise<boolean> {
  // The read model may lag: the conversation's newest event (one bounded read) must be older than the period,
  // so a customer who has just written again is kept.
  const [newest] = await deps.eventStore.readStream(conversationStream(doc.id), { direction: 'backwards', maxCount: 1 });
  const newestAt = (newest?.data as { at?: string } | undefined)?.at;
  if (newestAt && Date.parse(newestAt) > cutoff) return false;
  const customer = await loadCustomer(deps.eventStore, doc.companyId, doc.customerId);
  if (!customer || customer.erased) return false;
  const result = await eraseCustomer(deps, { companyId: doc.companyId, by: 'system:retention', customer, reason: `retention: closed more than ${days} days ago` });
  return result.erasedNow;
}
