// `npm start` / `npm test` run this first: build (npm run build) only when the build is missing or older
// than its sources, so a fresh clone works with the README's two commands and a second start costs no
// build. "Older" compares the newest modification time under the inputs with the stamp `npm run build`
// writes last (dist/.build-stamp), so an interrupted build is never taken for a finished one.
//   node scripts/ensureBuild.mjs          build if stale
//   node scripts/ensureBuild.mjs --stamp  record a finished build (the last step of npm run build)
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const stamp = join(root, 'dist', '.build-stamp');
const outputs = ['dist/server/main.js', 'dist/dashboard/index.html', 'dist/widget/widget.js'];

/** The newest mtime (ms) of a file, or of any file below a directory. */
function newestMtime(path) {
  let stat;
  try {
    stat = statSync(path);
  } catch {
    return 0;
  }
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = stat.mtimeMs; // a deleted file shows only as its directory's change
  for (const entry of readdirSync(path)) {
    if (entry === 'node_modules' || entry.startsWith('.')) continue;
    newest = Math.max(newest, newestMtime(join(path, entry)));
  }
  return newest;
}

function inputs() {
  const tsconfigs = readdirSync(root).filter((f) => /^tsconfig.*\.json$/.test(f));
  return ['src', 'web', 'package-lock.json', ...tsconfigs].map((p) => join(root, p));
}

function buildIsCurrent() {
  if (!existsSync(stamp) || outputs.some((f) => !existsSync(join(root, f)))) return { current: false, why: 'no build yet' };
  const built = statSync(stamp).mtimeMs;
  const newest = Math.max(...inputs().map(newestMtime));
  return newest > built ? { current: false, why: 'sources changed since the last build' } : { current: true };
}

if (process.argv.includes('--stamp')) {
  mkdirSync(dirname(stamp), { recursive: true });
  writeFileSync(stamp, `${new Date().toISOString()}\n`);
} else {
  const state = buildIsCurrent();
  if (!state.current) {
    console.log(`building (${state.why}): npm run build`);
    const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
    const result = spawnSync(npm, ['run', 'build'], { cwd: root, stdio: 'inherit' });
    process.exit(result.status ?? 1);
  }
}
