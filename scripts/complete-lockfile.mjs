// The registry mirror this project is built against serves only the linux-x64/arm64 builds of
// platform-specific optional packages (rollup's native binaries), so `npm install` writes a lock file
// without the others and `npm ci` then refuses it as out of sync. This adds the missing optional
// entries with their os/cpu constraints (as a lock made against the full registry has them); npm skips
// them on every other platform without fetching anything. Run after `npm install` changes the lock.
import { readFileSync, writeFileSync } from 'node:fs';

const path = new URL('../package-lock.json', import.meta.url);
const lock = JSON.parse(readFileSync(path, 'utf8'));
const osOf = (name) => ['android', 'darwin', 'freebsd', 'linux', 'openbsd', 'openharmony', 'win32', 'netbsd', 'sunos', 'aix'].find((os) => name.includes(`-${os}-`));
const cpuOf = (name) => ['arm64', 'arm', 'x64', 'ia32', 'loong64', 'ppc64', 'riscv64', 's390x', 'mips64el'].find((cpu) => name.includes(`-${cpu}`));
let added = 0;
for (const [key, entry] of Object.entries(lock.packages)) {
  for (const [dep, version] of Object.entries(entry.optionalDependencies ?? {})) {
    const depKey = `node_modules/${dep}`;
    if (lock.packages[depKey] || lock.packages[`${key}/${depKey}`]) continue;
    const os = osOf(dep);
    const cpu = cpuOf(dep);
    if (!os || !cpu) continue;
    lock.packages[depKey] = { version, cpu: [cpu], ...(entry.dev ? { dev: true } : {}), optional: true, os: [os] };
    added++;
  }
}
lock.packages = Object.fromEntries(Object.entries(lock.packages).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a.localeCompare(b))));
writeFileSync(path, JSON.stringify(lock, null, 2) + '\n');
console.log(`complete-lockfile: added ${added} platform-specific optional entries`);
