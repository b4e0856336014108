/**
 * Shared capacity (the file-reader threads, the knowledge index thread) served in turns between companies, so that
 * one company's many slow jobs can neither take every slot nor every waiting place, nor make another company wait
 * behind all of them. (fairScheduler.ts, beside it, does the same for replies with lanes and superseding, and
 * fairSlots.ts caps the slots of the other workers; these pools need neither.)
 *
 * - At most `slots` jobs run at once, at most `perCompany` of one company (below `slots`, a slot is always left for
 *   another company's job).
 * - A free slot goes to the company with the fewest jobs running, and among those to the one served longest ago:
 *   a company's first job never waits behind another company's queue.
 * - Bounded waiting: at most `perCompanyQueue` jobs of one company and `queue` in all wait. When every place is
 *   taken, a company with fewer waiting jobs takes the newest place of the company with the most (that job is
 *   refused as 'busy'), so a quiet company's job always gets in. A job that waited `maxWaitMs` is refused 'busy'.
 * - A job whose `signal` aborts while it waits leaves its queue at once (refused 'aborted'); one that runs is told
 *   by the same signal, which its work listens to.
 */
export class TurnRefusedError extends Error {
  override readonly name = 'TurnRefusedError';
  constructor(
    readonly reason: 'busy' | 'aborted',
    message: string,
  ) {
    super(message);
  }
}

export interface CompanyTurnsOptions {
  slots: number;
  perCompany: number;
  /** Jobs waiting at most, all companies together (running ones not counted). Default unbounded. */
  queue?: number;
  /** Jobs of one company waiting at most. Default `queue`. */
  perCompanyQueue?: number;
  /** A job that waited this long is refused 'busy'. Default never. */
  maxWaitMs?: number;
}

export interface CompanyTurns {
  /** Runs `work` in the company's turn; rejects with TurnRefusedError when it is refused or aborted before it ran. */
  run<T>(companyId: string, work: () => Promise<T>, signal?: AbortSignal): Promise<T>;
  readonly running: number;
  readonly waiting: number;
}

interface Job {
  company: Company;
  start(): void;
  refuse(err: TurnRefusedError): void;
}

interface Company {
  id: string;
  waiting: Job[];
  running: number;
  servedAt: number;
}

export function createCompanyTurns(options: CompanyTurnsOptions): CompanyTurns {
  const slots = Math.max(1, options.slots);
  const perCompany = Math.max(1, Math.min(options.perCompany, slots));
  const queue = options.queue ?? Number.POSITIVE_INFINITY;
  const perCompanyQueue = options.perCompanyQueue ?? queue;
  const companies = new Map<string, Company>();
  let running = 0;
  let waiting = 0;
  let served = 0;

  const companyOf = (id: string) => {
    let company = companies.get(id);
    if (!company) companies.set(id, (company = { id, waiting: [], running: 0, servedAt: 0 }));
    return company;
  };
  const forget = (company: Company) => {
    if (company.running === 0 && company.waiting.length === 0) companies.delete(company.id);
  };
  /** Out of its queue (to run, or refused); false when it had already left. */
  const leave = (job: Job) => {
    const at = job.company.waiting.indexOf(job);
    if (at < 0) return false;
    job.company.waiting.splice(at, 1);
    waiting--;
    return true;
  };
  const nextCompany = () => {
    let best: Company | undefined;
    for (const company of companies.values()) {
      if (company.waiting.length === 0 || company.running >= perCompany) continue;
      if (!best || company.running < best.running || (company.running === best.running && company.servedAt < best.servedAt)) best = company;
    }
    return best;
  };
  const dispatch = () => {
    while (running < slots) {
      const company = nextCompany();
      if (!company) return;
      const job = company.waiting[0]!;
      leave(job);
      job.start();
    }
  };
  /** Makes room for a job of `company`: the newest waiting job of the company with the most waiting goes, if it has more. */
  const makeRoom = (company: Company) => {
    let largest: Company | undefined;
    for (const c of companies.values()) if (c.waiting.length > (largest?.waiting.length ?? 0)) largest = c;
    if (!largest || largest.waiting.length <= company.waiting.length + 1) return false;
    const shed = largest.waiting.at(-1)!;
    leave(shed);
    shed.refuse(new TurnRefusedError('busy', 'too many jobs are waiting'));
    return true;
  };

  const run = <T>(companyId: string, work: () => Promise<T>, signal?: AbortSignal) =>
    new Promise<T>((resolve, reject) => {
      if (signal?.aborted) return reject(new TurnRefusedError('aborted', 'the job was cancelled'));
      const company = companyOf(companyId);
      let timer: NodeJS.Timeout | undefined;
      const settle = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
      };
      const job: Job = {
        company,
        start() {
          settle();
          company.running++;
          running++;
          company.servedAt = ++served;
          let task: Promise<T>;
          try {
            task = work();
          } catch (err) {
            task = Promise.reject(err);
          }
          const done = () => {
            company.running--;
            running--;
            forget(company);
            dispatch();
          };
          task.then(
            (value) => (done(), resolve(value)),
            (err: unknown) => (done(), reject(err)),
          );
        },
        refuse(err) {
          settle();
          forget(company);
          reject(err);
        },
      };
      const onAbort = () => {
        if (leave(job)) job.refuse(new TurnRefusedError('aborted', 'the job was cancelled'));
      };
      if (running < slots && company.running < perCompany && company.waiting.length === 0) return job.start();
      if (company.waiting.length >= perCompanyQueue || (waiting >= queue && !makeRoom(company))) {
        return job.refuse(new TurnRefusedError('busy', 'too many jobs are waiting'));
      }
      company.waiting.push(job);
      waiting++;
      signal?.addEventListener('abort', onAbort, { once: true });
      if (options.maxWaitMs !== undefined) {
        timer = setTimeout(() => {
          if (leave(job)) job.refuse(new TurnRefusedError('busy', 'waited too long for its turn'));
        }, options.maxWaitMs);
      }
      dispatch();
    });

  return {
    run,
    get running() {
      return running;
    },
    get waiting() {
      return waiting;
    },
  };
}
