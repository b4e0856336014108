import type { Leases } from '../ports/leases.js';
import type { Logger } from '../ports/logger.js';

/** What a leased duty gives back once started: how to stop it. */
export interface Duty {
  stop(): Promise<void>;
}

export interface LeasedDuty {
  /** Whether this instance runs the duty now. */
  held(): boolean;
  /** Stops the duty (if running) and gives up the lease, or stops asking for it. */
  stop(): Promise<void>;
}

export interface LeasedDutyOptions {
  leases: Leases;
  /** The lease's name: the same on every instance that may run the duty. */
  name: string;
  start(): Promise<Duty>;
  logger: Logger;
  /** How often a standby asks for the lease (default 2000 ms): with a holder gone, the failover takes about this long. */
  retryMs?: number;
}

/**
 * Runs `start`'s duty while this instance holds the lease `name`: a standby asks again every `retryMs`, a holder
 * whose lease is lost stops the duty and goes back to asking. The first attempt is made before this resolves,
 * so where every lease is held at once (one process on its store) the duty has started when it does.
 */
export async function startLeasedDuty(options: LeasedDutyOptions): Promise<LeasedDuty> {
  const { leases, name, logger } = options;
  const retryMs = options.retryMs ?? 2000;
  let stopped = false;
  let running = false;
  let wake: (() => void) | null = null;
  const stopSignal = new Promise<void>((resolve) => (wake = resolve));
  const pause = (ms: number) =>
    Promise.race([stopSignal, new Promise<void>((resolve) => setTimeout(resolve, ms).unref())]);

  /** Takes the lease if no one holds it and starts the duty; null when it is held elsewhere (or start failed). */
  const take = async (): Promise<{ release(): Promise<void>; lost: Promise<void>; duty: Duty } | null> => {
    const lease = await leases.tryAcquire(name).catch((err: unknown) => {
      logger.warn({ err, lease: name }, 'could not ask for the lease; asking again');
      return null;
    });
    if (!lease) return null;
    if (stopped) {
      await lease.release();
      return null;
    }
    try {
      const duty = await options.start();
      running = true;
      logger.info({ lease: name }, 'lease taken: this instance runs the duty');
      return { release: () => lease.release(), lost: lease.lost, duty };
    } catch (err) {
      logger.error({ err, lease: name }, 'the leased duty failed to start; the lease is given up and asked for again');
      await lease.release().catch(() => undefined);
      return null;
    }
  };

  let current = await take();
  const loop = (async () => {
    for (;;) {
      if (current) {
        await Promise.race([current.lost, stopSignal]);
        running = false;
        if (!stopped) logger.warn({ lease: name }, 'lease lost: the duty stops here and passes to whichever instance takes it');
        await current.duty.stop().catch((err: unknown) => logger.error({ err, lease: name }, 'stopping the leased duty failed'));
        await current.release().catch(() => undefined);
        current = null;
      }
      if (stopped) return;
      await pause(retryMs);
      if (stopped) return;
      current = await take();
    }
  })();
  return {
    held: () => running,
    async stop() {
      stopped = true;
      wake?.();
      await loop;
    },
  };
}
