import type { Config } from '../config.js';
import type { ProcessorPart } from './processor.js';

/** What the host thread (processorThread.ts) and the processor thread (processorThreadMain.ts) say to each other. */

/** Host → processor thread: requests, each answered by a `reply` with the same id. */
export type ToProcessor =
  | { type: 'wait'; id: number; position: string; timeoutMs: number }
  | { type: 'stats'; id: number }
  | { type: 'metrics'; id: number }
  | { type: 'stop'; id: number };

/** What the processor thread is started with (its workerData). */
export interface ProcessorThreadData {
  config: Config;
  part: ProcessorPart;
}

/** Processor thread → host: started (or not), and the answers to requests. */
export type ToHost = { type: 'ready' } | { type: 'failed'; error: string } | { type: 'reply'; id: number; ok: boolean; error?: string; value?: unknown };
