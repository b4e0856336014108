import { createMemoryPersonalDataKeys } from '../../src/infrastructure/personalKeys/memoryPersonalDataKeys.js';
import { personalDataKeysContract } from './personalDataKeysContract.js';

personalDataKeysContract('memory', async () => {
  const keys = createMemoryPersonalDataKeys();
  return { keys, another: async () => keys, cleanup: () => keys.close() };
});
