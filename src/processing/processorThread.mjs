// Entry of the processor worker thread. A worker does not inherit the TypeScript loader of every runner
// (tsx, vitest), so it registers tsx itself and then loads the TypeScript module.
import { register } from 'tsx/esm/api';

register();
await import('./processorThreadMain.ts');
