import { busContract } from './busContract.js';
import { createInProcessBus } from '../../src/infrastructure/memory/inProcessBus.js';

busContract('in-process', async () => {
  const bus = createInProcessBus({ dedupeWindowMs: 60_000 });
  const others = [bus];
  return {
    bus,
    bus2: async () => {
      const other = bus.connectInstance();
      others.push(other);
      return other;
    },
    cleanup: async () => {
      await Promise.all(others.map((b) => b.close()));
    },
  };
});
