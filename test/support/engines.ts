import { existsSync } from 'node:fs';

/**
 * Decides whether an external engine's contract suite can run here, and says so in one line when not:
 * a suite is never skipped silently.
 */
export function dockerAvailable(): boolean {
  if (process.env.DOCKER_HOST) return true;
  return existsSync('/var/run/docker.sock');
}

export type EngineTarget = { mode: 'url'; url: string } | { mode: 'docker' } | { mode: 'skip'; reason: string };

export function engineTarget(name: string, envVar: string): EngineTarget {
  const url = process.env[envVar];
  if (url) return { mode: 'url', url };
  if (dockerAvailable()) return { mode: 'docker' };
  const reason = `${envVar} is not set and no Docker engine is reachable`;
  console.log(`[skip] ${name} contract suite skipped: ${reason}`);
  return { mode: 'skip', reason };
}
