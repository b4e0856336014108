import { readFileSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';

/** nice of one thread, from /proc/<pid>/task/<tid>/stat (field 19; the command name may hold spaces, so count from its end). */
const niceOf = (tid: number) => Number(readFileSync(`/proc/${process.pid}/task/${tid}/stat`, 'utf8').split(') ')[1]!.split(' ')[16]);

describe.runIf(process.platform === 'linux')('lowerThisThreadPriority', () => {
  it('given a worker thread that lowers its priority to 7, then that thread runs at nice 7 and the main thread is unchanged', async () => {
    const mainTid = process.pid;
    const mainBefore = niceOf(mainTid);
    const moduleUrl = new URL('../../src/processing/threadPriority.ts', import.meta.url).href;
    // The worker imports the TypeScript module through tsx, as the processor thread's shim does.
    const worker = new Worker(
      `const { parentPort } = require('node:worker_threads');
       import('tsx/esm/api').then(({ register }) => { register(); return import(${JSON.stringify(moduleUrl)}); })
         .then((m) => {
           const ok = m.lowerThisThreadPriority(7);
           const tid = Number(require('node:fs').readlinkSync('/proc/thread-self').split('/').pop());
           parentPort.postMessage({ ok, tid });
           setTimeout(() => {}, 500);
         });`,
      { eval: true },
    );
    const { ok, tid } = await new Promise<{ ok: boolean; tid: number }>((resolve, reject) => {
      worker.once('message', resolve);
      worker.once('error', reject);
    });
    try {
      expect(ok).toBe(true);
      expect(tid).not.toBe(mainTid);
      expect(niceOf(tid)).toBe(7);
      expect(niceOf(mainTid)).toBe(mainBefore);
    } finally {
      await worker.terminate();
    }
  });
});
