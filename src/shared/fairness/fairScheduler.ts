/**
 * Work served fairly between companies, and between the conversations of one company.
 *
 * Every task names its company and its lane (a conversation). Waiting tasks sit in per-company queues of lanes;
 * a free slot goes to the next company in turn (round-robin over the companies that have work), and within that
 * company to its next lane in turn. So a company with one waiting message is served next, ahead of one with
 * 80,000, and one conversation with 500 queued messages takes one turn among its company's other customers.
 *
 * - At most `slots` tasks run at once, at most `perCompany` of one company (a company whose model hangs holds
 *   only its share) and at most one per lane (a conversation's work stays in order).
 * - The scheduler is work-conserving: a company alone may use every slot up to its cap.
 * - `supersede`: a new task in a lane replaces the lane's waiting ones (they resolve "superseded"), keeping the
 *   lane's turn and the oldest `since`. A reply answers every unanswered message of a conversation, so only its
 *   newest job needs to run.
 * - Bounded: at most `capacity` tasks wait. One more sheds a waiting task of the company with the most waiting
 *   ("shed-full"), its newest lane, so the newcomer of a quieter company always gets in. A task whose `since`
 *   is older than `maxDelayMs` when its turn comes is not run ("shed-late"). The caller records what a shed task
 *   means (e.g. the messages go to people); nothing is dropped silently.
 */
export type FairOutcome = 'ran' | 'superseded' | 'shed-full' | 'shed-late';

export interface FairTask {
  companyId: string;
  lane: string;
  /** Since when the work has waited (ms since the epoch): a message's receipt, not its arrival here. */
  since: number;
  /** `since`: the lane's oldest, when this task replaced waiting ones. */
  run(since: number): Promise<void>;
}

export interface FairSchedulerOptions {
  slots: number;
  perCompany: number;
  /** Tasks waiting at most (running ones not counted). Default unbounded. */
  capacity?: number;
  /** A task waiting longer than this (from `since`) is shed when its turn comes. Default never. */
  maxDelayMs?: number;
  supersede?: boolean;
  now?: () => number;
}

export interface CompanyBacklog {
  companyId: string;
  waiting: number;
  running: number;
  /** `since` of its oldest waiting task, null when none waits. */
  oldestSince: number | null;
}

export interface FairScheduler {
  /** Resolves when the task ran (rejects with its error), or when it was superseded or shed without running. */
  submit(task: FairTask): Promise<FairOutcome>;
  /** Per company, waiting and running (cost: one pass over what waits, bounded by `capacity`). */
  backlog(): CompanyBacklog[];
  readonly waiting: number;
  readonly running: number;
}

interface Waiting {
  task: FairTask;
  settle(outcome: FairOutcome): void;
  fail(err: unknown): void;
}

interface Lane {
  id: string;
  items: Waiting[];
  running: boolean;
  /** In its company's ready queue. */
  ready: boolean;
}

interface Company {
  id: string;
  lanes: Map<string, Lane>;
  ready: Deque<Lane>;
  waiting: number;
  running: number;
  /** When it was last given a slot (a counter): the longest unserved goes first among equals. */
  servedAt: number;
}

export function createFairScheduler(options: FairSchedulerOptions): FairScheduler {
  return new Scheduler(options);
}

class Scheduler implements FairScheduler {
  private readonly slots: number;
  private readonly perCompany: number;
  private readonly capacity: number;
  private readonly maxDelayMs: number;
  private readonly now: () => number;
  private readonly companies = new Map<string, Company>();
  /** Companies with a lane ready to run. */
  private readonly active = new Set<Company>();
  private served = 0;
  private waitingCount = 0;
  private runningCount = 0;

  constructor(private readonly options: FairSchedulerOptions) {
    this.slots = Math.max(1, options.slots);
    this.perCompany = Math.max(1, Math.min(options.perCompany, this.slots));
    this.capacity = options.capacity ?? Number.POSITIVE_INFINITY;
    this.maxDelayMs = options.maxDelayMs ?? Number.POSITIVE_INFINITY;
    this.now = options.now ?? Date.now;
  }

  get waiting(): number {
    return this.waitingCount;
  }

  get running(): number {
    return this.runningCount;
  }

  submit(task: FairTask): Promise<FairOutcome> {
    return new Promise<FairOutcome>((resolve, reject) => {
      const company = this.companyOf(task.companyId);
      let lane = company.lanes.get(task.lane);
      if (!lane) {
        lane = { id: task.lane, items: [], running: false, ready: false };
        company.lanes.set(task.lane, lane);
      }
      let since = task.since;
      if (this.options.supersede) {
        for (const old of [...lane.items]) {
          since = Math.min(since, old.task.since);
          this.take(company, lane, old);
          old.settle('superseded');
        }
      }
      const item: Waiting = { task: since === task.since ? task : { ...task, since }, settle: resolve, fail: reject };
      lane.items.push(item);
      company.waiting++;
      this.waitingCount++;
      this.makeReady(company, lane);
      while (this.waitingCount > this.capacity) this.shedOne();
      this.dispatch();
    });
  }

  backlog(): CompanyBacklog[] {
    const rows: CompanyBacklog[] = [];
    for (const company of this.companies.values()) {
      let oldestSince: number | null = null;
      for (const lane of company.lanes.values()) for (const item of lane.items) if (oldestSince === null || item.task.since < oldestSince) oldestSince = item.task.since;
      rows.push({ companyId: company.id, waiting: company.waiting, running: company.running, oldestSince });
    }
    return rows;
  }

  private companyOf(id: string): Company {
    let company = this.companies.get(id);
    if (!company) {
      company = { id, lanes: new Map(), ready: new Deque(), waiting: 0, running: 0, servedAt: 0 };
      this.companies.set(id, company);
    }
    return company;
  }

  private forget(company: Company, lane: Lane): void {
    if (!lane.running && lane.items.length === 0) company.lanes.delete(lane.id);
    if (company.lanes.size === 0 && company.running === 0) {
      this.companies.delete(company.id);
      this.active.delete(company);
    }
  }

  private makeReady(company: Company, lane: Lane): void {
    if (lane.ready || lane.running || lane.items.length === 0) return;
    lane.ready = true;
    company.ready.push(lane);
    this.active.add(company);
  }

  /** Out of its lane's queue: to run, or settled without running. */
  private take(company: Company, lane: Lane, item: Waiting): void {
    lane.items.splice(lane.items.indexOf(item), 1);
    company.waiting--;
    this.waitingCount--;
  }

  private start(company: Company, lane: Lane, item: Waiting): void {
    lane.running = true;
    company.running++;
    this.runningCount++;
    let task: Promise<void>;
    try {
      task = item.task.run(item.task.since);
    } catch (err) {
      task = Promise.reject(err);
    }
    void task
      .then(
        () => null,
        (err: unknown) => ({ err }),
      )
      .then((failure) => {
        lane.running = false;
        company.running--;
        this.runningCount--;
        this.makeReady(company, lane);
        this.forget(company, lane);
        if (failure) item.fail(failure.err);
        else item.settle('ran');
        this.dispatch();
      });
  }

  /**
   * Fills free slots. The next slot goes to the company with the fewest tasks running, and among those to the
   * one served longest ago: a company's first message never waits behind another company's second, and a
   * company that was just served goes to the back of the line however much it has waiting.
   */
  private dispatch(): void {
    while (this.runningCount < this.slots && this.active.size > 0) {
      const best = this.nextCompany();
      if (!best) return;
      best.servedAt = ++this.served;
      const lane = best.ready.shift()!;
      lane.ready = false;
      const item = lane.items[0]!;
      this.take(best, lane, item);
      if (this.now() - item.task.since > this.maxDelayMs) {
        item.settle('shed-late');
        this.makeReady(best, lane);
        this.forget(best, lane);
      } else {
        this.start(best, lane, item);
      }
      if (best.ready.length === 0) this.active.delete(best);
    }
  }

  /** The company the next slot goes to (fewest running, then served longest ago), if any may run one more. */
  private nextCompany(): Company | undefined {
    let best: Company | undefined;
    for (const company of this.active) {
      if (company.ready.length === 0) {
        this.active.delete(company);
        continue;
      }
      if (company.running >= this.perCompany) continue;
      if (!best || company.running < best.running || (company.running === best.running && company.servedAt < best.servedAt)) best = company;
    }
    return best;
  }

  /** The newest waiting task of the company with the most waiting ones goes, to make room. */
  private shedOne(): void {
    let largest: Company | undefined;
    for (const company of this.companies.values()) if (company.waiting > (largest?.waiting ?? 0)) largest = company;
    if (!largest) return;
    let lane = largest.ready.pop();
    if (lane) lane.ready = false;
    else for (const l of largest.lanes.values()) if (l.items.length > 0) lane = l; // all its waiting lanes are running one
    if (!lane) return;
    const item = lane.items.at(-1)!;
    this.take(largest, lane, item);
    item.settle('shed-full');
    this.makeReady(largest, lane);
    this.forget(largest, lane);
  }
}

/** A ring buffer: O(1) push, shift and pop at any size (Array#shift copies). */
export class Deque<T> {
  private items: (T | undefined)[] = new Array(8);
  private head = 0;
  private size = 0;

  get length(): number {
    return this.size;
  }

  push(item: T): void {
    if (this.size === this.items.length) this.grow();
    this.items[(this.head + this.size) % this.items.length] = item;
    this.size++;
  }

  shift(): T | undefined {
    if (this.size === 0) return undefined;
    const item = this.items[this.head];
    this.items[this.head] = undefined;
    this.head = (this.head + 1) % this.items.length;
    this.size--;
    return item;
  }

  pop(): T | undefined {
    if (this.size === 0) return undefined;
    const at = (this.head + this.size - 1) % this.items.length;
    const item = this.items[at];
    this.items[at] = undefined;
    this.size--;
    return item;
  }

  remove(item: T): boolean {
    for (let i = 0; i < this.size; i++) {
      const at = (this.head + i) % this.items.length;
      if (this.items[at] !== item) continue;
      for (let j = i; j < this.size - 1; j++) this.items[(this.head + j) % this.items.length] = this.items[(this.head + j + 1) % this.items.length];
      this.items[(this.head + this.size - 1) % this.items.length] = undefined;
      this.size--;
      return true;
    }
    return false;
  }

  private grow(): void {
    const next = new Array<T | undefined>(this.items.length * 2);
    for (let i = 0; i < this.size; i++) next[i] = this.items[(this.head + i) % this.items.length];
    this.items = next;
    this.head = 0;
  }
}
