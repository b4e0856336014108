// `npm test` runs this first (pretest): the test suites need two programs that npm does not install,
// a NATS server (the NATS adapter is tested against a real one, started on a free loopback port) and
// Chromium (the browser suites). When one is missing it is installed with apt-get if that can run
// without a password prompt (root, or passwordless sudo); otherwise this stops at once with one line
// naming what to install. NATS_SERVER_BIN and CHROMIUM_PATH point at other installs (as the tests read them).
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { delimiter, join } from 'node:path';

const onPath = (name) => (process.env.PATH ?? '').split(delimiter).filter(Boolean).map((dir) => join(dir, name));

// Same lookup as test/support/natsServer.ts and test/support/browser.ts.
function natsServer() {
  if (process.env.NATS_SERVER_BIN) return existsSync(process.env.NATS_SERVER_BIN) ? process.env.NATS_SERVER_BIN : undefined;
  return ['/usr/sbin/nats-server', '/usr/bin/nats-server', '/usr/local/bin/nats-server', ...onPath('nats-server')].find((p) => existsSync(p));
}
const chromium = () => {
  const path = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
  return existsSync(path) ? path : undefined;
};

const missing = [];
if (!natsServer()) missing.push('nats-server');
if (!chromium()) missing.push('chromium');

if (missing.length > 0) {
  const canRun = (cmd, args) => spawnSync(cmd, args, { stdio: 'ignore' }).status === 0;
  const isRoot = process.getuid?.() === 0;
  const sudo = isRoot ? [] : canRun('sudo', ['-n', 'true']) ? ['sudo', '-n'] : null;
  if (sudo === null || !canRun('apt-get', ['--version'])) {
    console.error(
      `npm test needs ${missing.join(' and ')}: install ${missing.length > 1 ? 'them' : 'it'} (Debian/Ubuntu: sudo apt-get install ${missing.join(' ')})` +
        ' or point NATS_SERVER_BIN / CHROMIUM_PATH at an existing install',
    );
    process.exit(1);
  }
  console.log(`installing ${missing.join(' ')} with apt-get (needed by the test suites)`);
  const apt = (...args) => {
    const [cmd, ...rest] = [...sudo, 'apt-get', ...args];
    const r = spawnSync(cmd, rest, { stdio: ['ignore', 'ignore', 'inherit'], env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
    if (r.status !== 0) {
      console.error(`apt-get ${args.join(' ')} failed (exit ${r.status}); install ${missing.join(' ')} by hand`);
      process.exit(1);
    }
  };
  apt('update', '-qq');
  apt('install', '-y', '-qq', '--no-install-recommends', ...missing);
  const still = [!natsServer() && 'nats-server', !chromium() && `chromium (looked for ${process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'})`].filter(Boolean);
  if (still.length > 0) {
    console.error(`still missing after apt-get: ${still.join(', ')}`);
    process.exit(1);
  }
}

// Which NATS server the suites run against, in every CI log.
console.log(`${execFileSync(natsServer(), ['--version'], { encoding: 'utf8' }).trim()}`);
