import type { Leases } from '../../ports/leases.js';

/**
 * One process alone on its store (the embedded SQLite files, or engines without a lease adapter): every lease is
 * held at once and never lost, so every duty runs as it always has. Several processors on such a store each run
 * every duty, and each duty's own guard keeps that correct (docs/architecture.md, "Process roles and threads").
 */
export const soleLeases: Leases = {
  tryAcquire: async (name) => ({ name, lost: new Promise<void>(() => undefined), release: async () => undefined }),
  close: async () => undefined,
};
