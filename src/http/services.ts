import type { Config } from '../config.js';
import type { AuthDeps, CommandDeps } from '../commands/ports.js';
import type { ReadStore } from '../ports/readStore.js';

/** What route plugins need from the composition root. */
export interface HttpServices {
  config: Config;
  commands: CommandDeps;
  auth: AuthDeps;
  readStore: ReadStore;
  /** Read-your-writes: resolves once every projector has applied the event at `position`. */
  waitForProjections(position: bigint | null): Promise<void>;
}
