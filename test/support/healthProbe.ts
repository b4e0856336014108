import { spawn } from 'node:child_process';

/**
 * Polls /healthz of the server at argv[1] every 10 ms until stdin says stop, then writes the latencies (ms) as
 * JSON. It runs in its own process: a probe in the server's process would stall together with the server and
 * could not see the stall.
 */
const PROBE = `
const latencies = [];
let running = true;
process.stdin.on('data', () => { running = false; });
(async () => {
  while (running) {
    const started = performance.now();
    await fetch(process.argv[1] + '/healthz').then((r) => r.arrayBuffer());
    latencies.push(performance.now() - started);
    await new Promise((r) => setTimeout(r, 10));
  }
  process.stdout.write(JSON.stringify(latencies));
})();
`;

export interface HealthLatencies {
  /** Every probe's latency (ms), smallest first. */
  latencies: number[];
  p99: number;
  max: number;
}

/** Starts the probe against `base` and gives it 300 ms to be up and polling; `stop()` ends it and measures. */
export async function startHealthProbe(base: string): Promise<{ stop(): Promise<HealthLatencies> }> {
  const probe = spawn(process.execPath, ['-e', PROBE, base], { stdio: ['pipe', 'pipe', 'inherit'] });
  let output = '';
  probe.stdout.on('data', (d: Buffer) => (output += d.toString()));
  const exited = new Promise((resolve) => probe.on('exit', resolve));
  await new Promise((r) => setTimeout(r, 300));
  return {
    async stop() {
      probe.stdin.end('stop');
      await exited;
      const latencies = (JSON.parse(output) as number[]).sort((a, b) => a - b);
      return { latencies, p99: latencies[Math.floor(latencies.length * 0.99)]!, max: latencies.at(-1)! };
    },
  };
}
