// Entry of a file-text worker thread. A worker does not inherit the TypeScript loader of every runner (vitest
// has its own), so it registers tsx itself and then loads the TypeScript module (as knowledgeWorker.mjs does).
import { register } from 'tsx/esm/api';

register();
await import('./fileTextWorker.ts');
