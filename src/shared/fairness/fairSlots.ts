/**
 * Worker slots shared fairly between tenants: at most `total` jobs run at once in this process, and at most
 * `perCompany` of them for one company. So one company's hanging LLM or flood of messages holds only its own
 * share, and every other company keeps `total - perCompany` slots.
 *
 * A job that cannot get a slot within `maxWaitMs` is told to step aside (`acquire` resolves null): the caller
 * gives the job back to its queue, so one company's backlog does not hold the bus's in-flight window either.
 */
export interface FairSlots {
  acquire(companyId: string, maxWaitMs: number): Promise<Release | null>;
  /** Jobs running now, per company (for tests and metrics). */
  running(): { total: number; byCompany: Record<string, number> };
}

export type Release = () => void;

interface Waiter {
  companyId: string;
  grant(release: Release): void;
  timer: NodeJS.Timeout;
}

export function createFairSlots(options: { total: number; perCompany: number }): FairSlots {
  const total = Math.max(1, options.total);
  const perCompany = Math.max(1, Math.min(options.perCompany, total));
  const byCompany = new Map<string, number>();
  let inUse = 0;
  const waiters: Waiter[] = [];

  const canRun = (companyId: string) => inUse < total && (byCompany.get(companyId) ?? 0) < perCompany;

  const take = (companyId: string): Release => {
    inUse++;
    byCompany.set(companyId, (byCompany.get(companyId) ?? 0) + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      inUse--;
      const left = (byCompany.get(companyId) ?? 1) - 1;
      if (left === 0) byCompany.delete(companyId);
      else byCompany.set(companyId, left);
      wake();
    };
  };

  // The oldest waiter whose company has room goes first: FIFO across companies, capped within one.
  const wake = () => {
    for (let i = 0; i < waiters.length && inUse < total; ) {
      const w = waiters[i]!;
      if (canRun(w.companyId)) {
        waiters.splice(i, 1);
        clearTimeout(w.timer);
        w.grant(take(w.companyId));
      } else i++;
    }
  };

  return {
    acquire(companyId, maxWaitMs) {
      if (canRun(companyId)) return Promise.resolve(take(companyId));
      return new Promise((resolve) => {
        const waiter: Waiter = {
          companyId,
          grant: resolve,
          timer: setTimeout(() => {
            const at = waiters.indexOf(waiter);
            if (at >= 0) waiters.splice(at, 1);
            resolve(null);
          }, maxWaitMs),
        };
        waiters.push(waiter);
      });
    },
    running: () => ({ total: inUse, byCompany: Object.fromEntries(byCompany) }),
  };
}
