import { describe, expect, it } from 'vitest';
import { soleLeases } from '../../../src/infrastructure/memory/soleLeases.js';
import { silentLogger } from '../../../src/ports/logger.js';
import type { Lease, Leases } from '../../../src/ports/leases.js';
import { startLeasedDuty } from '../../../src/processing/leasedDuty.js';
import { eventually } from '../../support/eventually.js';

/** Leases held in memory by one holder at a time, which the test can take away (a lost connection). */
function memoryLeases() {
  const holders = new Map<string, { lose(): void }>();
  const leases: Leases = {
    async tryAcquire(name) {
      if (holders.has(name)) return null;
      let lose!: () => void;
      const lost = new Promise<void>((resolve) => (lose = resolve));
      const entry = { lose };
      holders.set(name, entry);
      const lease: Lease = {
        name,
        lost,
        release: async () => {
          if (holders.get(name) === entry) holders.delete(name);
        },
      };
      return lease;
    },
    close: async () => undefined,
  };
  return {
    leases,
    held: (name: string) => holders.has(name),
    loseAll() {
      for (const h of holders.values()) h.lose();
      holders.clear();
    },
  };
}

describe('a duty run while its lease is held', () => {
  it('on the embedded store every lease is held at once: the duty has started when startLeasedDuty resolves', async () => {
    const log: string[] = [];
    const duty = await startLeasedDuty({ leases: soleLeases, name: 'projections', logger: silentLogger, start: async () => (log.push('start'), { stop: async () => void log.push('stop') }) });
    expect(log).toEqual(['start']);
    expect(duty.held()).toBe(true);
    await duty.stop();
    expect(log).toEqual(['start', 'stop']);
  });

  it('a standby starts the duty once the holder gives the lease up, and a holder whose lease is lost stops it', async () => {
    const mem = memoryLeases();
    const running: string[] = [];
    const log: string[] = [];
    const start = (who: string) =>
      startLeasedDuty({
        leases: mem.leases,
        name: 'reactors',
        retryMs: 20,
        logger: silentLogger,
        start: async () => {
          running.push(who);
          log.push(`${who} starts`);
          return {
            stop: async () => {
              running.splice(running.indexOf(who), 1);
              log.push(`${who} stops`);
            },
          };
        },
      });
    const a = await start('a');
    const b = await start('b');
    expect(running).toEqual(['a']);
    await a.stop();
    await eventually(() => expect(running).toEqual(['b']), 2000, 10);
    mem.loseAll();
    // B stops, then asks again and, the lease being free, takes it back: never two at a time.
    await eventually(() => expect(log).toEqual(['a starts', 'a stops', 'b starts', 'b stops', 'b starts']), 2000, 10);
    expect(running).toEqual(['b']);
    expect(b.held()).toBe(true);
    await b.stop();
    expect(running).toEqual([]);
    expect(mem.held('reactors')).toBe(false);
  });

  it('a duty that fails to start gives the lease up and is tried again', async () => {
    const mem = memoryLeases();
    let attempts = 0;
    const duty = await startLeasedDuty({
      leases: mem.leases,
      name: 'sweeps',
      retryMs: 20,
      logger: silentLogger,
      start: async () => {
        attempts++;
        if (attempts < 3) throw new Error('the read store is not there yet');
        return { stop: async () => undefined };
      },
    });
    expect(duty.held()).toBe(false);
    expect(mem.held('sweeps')).toBe(false);
    await eventually(() => expect(duty.held()).toBe(true), 2000, 10);
    expect(attempts).toBe(3);
    await duty.stop();
    expect(mem.held('sweeps')).toBe(false);
  });
});
