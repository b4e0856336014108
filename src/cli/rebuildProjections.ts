/**
 * `npm run projections:rebuild`: replays every event into a fresh read store generation, then switches every
 * server (they follow the switch on their own) to it. Safe while servers run: they keep serving the old
 * generation until the switch-over, then their projections continue on the new one from its checkpoint.
 * Exit code 0 on success, 1 on failure (the active generation is then unchanged).
 */
import { loadConfig } from '../config.js';
import { openAdapters } from '../infrastructure/adapters.js';
import { createLogger } from '../infrastructure/logger.js';
import { allProjections } from '../projections/index.js';
import { rebuildProjections } from '../processing/projectionRunner.js';
import { runCli } from './runCli.js';

async function main(): Promise<number> {
  const config = loadConfig();
  const logger = createLogger({ level: config.logLevel }).child({ component: 'projections-rebuild' });
  const adapters = await openAdapters(config, logger);
  try {
    const result = await rebuildProjections({
      eventStore: adapters.eventStore,
      readStore: adapters.readStore,
      projections: allProjections,
      logger,
    });
    logger.info(
      {
        generation: result.generation,
        events: result.events,
        position: result.position === null ? null : String(result.position),
        applied: result.applied,
        durationMs: result.durationMs,
      },
      `read models rebuilt into generation ${result.generation}`,
    );
    return 0;
  } catch (err) {
    logger.error({ err }, 'rebuilding the read models failed; the active generation is unchanged');
    return 1;
  } finally {
    await adapters.close();
  }
}

runCli(main);
