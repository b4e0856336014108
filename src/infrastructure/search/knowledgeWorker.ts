import { parentPort } from 'node:worker_threads';
import { CALIBRATION_DELAY_MS, createKnowledgeIndex } from './knowledgeIndex.js';
import { handleIndexRequest, type IndexRequest } from './knowledgeIndexHost.js';

/** The knowledge index worker thread: every company's index, one request at a time, in order. */
const index = createKnowledgeIndex({ calibrationDelayMs: CALIBRATION_DELAY_MS });
parentPort?.on('message', ({ id, request }: { id: number; request: IndexRequest }) => {
  try {
    parentPort?.postMessage({ id, value: handleIndexRequest(index, request) });
  } catch (err) {
    parentPort?.postMessage({ id, error: err instanceof Error ? err.message : String(err) });
  }
});
