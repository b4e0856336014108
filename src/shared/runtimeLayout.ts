import { fileURLToPath } from 'node:url';

/**
 * Where things are at run time, which differs between the two ways the service runs: as TypeScript from
 * src/ (tsx, vitest; module URLs end in .ts) and compiled into dist/server/ (`npm start`, the Docker image).
 */
const compiled = !import.meta.url.endsWith('.ts');

/**
 * The file a worker thread starts from. As TypeScript the thread starts from a .mjs shim that registers tsx,
 * because a worker does not inherit the runner's loader. Compiled, the thread loads the compiled module
 * directly, so no TypeScript loader is ever needed in production.
 */
export function threadEntry(hostModuleUrl: string, files: { shim: string; compiled: string }): URL {
  return new URL(hostModuleUrl.endsWith('.ts') ? files.shim : files.compiled, hostModuleUrl);
}

/** dist/, holding the built dashboard and widget: next to dist/server/ when compiled, under the repo root otherwise. */
export function webAssetsDir(): string {
  // src/shared/ -> ../../dist/ ; dist/server/shared/ -> ../../ (that is dist/)
  return fileURLToPath(new URL(compiled ? '../../' : '../../dist/', import.meta.url));
}
