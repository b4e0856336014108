import { MemoryEventStore } from '../../src/infrastructure/memory/memoryEventStore.js';
import { eventStoreContract } from './eventStoreContract.js';

eventStoreContract('memory', async () => {
  const store = new MemoryEventStore();
  return { store, cleanup: () => store.close() };
});
