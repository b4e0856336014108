import type { Logger } from '../ports/logger.js';
import type { Page } from '../ports/readStore.js';

/**
 * A timed pass over a read model kept in order of urgency (a deadline, a waiting time): every `intervalMs`, the
 * items already due (up to the first one that is not) are taken, at most `max` a pass, and handled one company at
 * a time in turn, so one company's backlog never holds another's back. A pass never overlaps the previous one, and
 * an item that fails is logged and left for the next pass. An item handled for good but still listed (the read
 * model lags, or it waits on something else) is `settled`: skipped by later passes; the memory of those is bounded.
 */
export interface TimedSweep<T> {
  /** What the sweep does, for its log lines. */
  name: string;
  intervalMs: number;
  logger: Logger;
  /** A page of the read model, most urgent first. */
  page(limit: number, cursor: string | null): Promise<Page<T>>;
  /** Whether the item is due at `now` (ms); the first one that is not ends the pass. */
  due(item: T, now: number): boolean;
  /** The item's identity for `settled`. */
  key(item: T): string;
  companyOf(item: T): string;
  /** `done`: handled; `settled`: nothing more to do, skip it from now on; `again`: look at it next pass. */
  handle(item: T, now: number): Promise<'done' | 'settled' | 'again'>;
  /** Items looked at per pass at most (default 500): one pass is bounded work, whatever the backlog. */
  max?: number;
  now(): number;
}

const PAGE = 100;
const SETTLED_KEPT = 10_000;

export function startTimedSweep<T>(sweep: TimedSweep<T>): { stop(): Promise<void> } {
  const settled = new Set<string>();
  let sweeping: Promise<unknown> | null = null;
  const timer = setInterval(() => {
    sweeping ??= sweepOnce(sweep, settled)
      .catch((err) => sweep.logger.error({ err }, `${sweep.name} failed: the next pass retries`))
      .finally(() => {
        sweeping = null;
      });
  }, sweep.intervalMs);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await sweeping;
    },
  };
}

/** One pass: how many items it handled (`done`). */
export async function sweepOnce<T>(sweep: TimedSweep<T>, settled = new Set<string>()): Promise<number> {
  const now = sweep.now();
  const max = sweep.max ?? 500;
  const due: T[] = [];
  let cursor: string | null = null;
  do {
    const page = await sweep.page(PAGE, cursor);
    const upTo = page.items.findIndex((item) => !sweep.due(item, now));
    due.push(...(upTo === -1 ? page.items : page.items.slice(0, upTo)).filter((item) => !settled.has(sweep.key(item))));
    cursor = upTo === -1 ? page.nextCursor : null;
  } while (cursor && due.length < max);
  let done = 0;
  for (const item of inCompanyTurns(due.slice(0, max), sweep.companyOf)) {
    const outcome = await sweep.handle(item, now).catch((err: unknown) => {
      sweep.logger.warn({ err, key: sweep.key(item) }, `${sweep.name}: an item failed, the next pass retries`);
      return 'again' as const;
    });
    if (outcome === 'done') done++;
    if (outcome === 'settled') {
      if (settled.size >= SETTLED_KEPT) settled.clear();
      settled.add(sweep.key(item));
    }
  }
  return done;
}

/** Round robin over companies, each company's items in the read model's order. */
function inCompanyTurns<T>(items: T[], companyOf: (item: T) => string): T[] {
  const byCompany = new Map<string, T[]>();
  for (const item of items) {
    const queue = byCompany.get(companyOf(item));
    if (queue) queue.push(item);
    else byCompany.set(companyOf(item), [item]);
  }
  const queues = [...byCompany.values()];
  const out: T[] = [];
  for (let i = 0; out.length < items.length; i++) for (const q of queues) if (q[i]) out.push(q[i]!);
  return out;
}
