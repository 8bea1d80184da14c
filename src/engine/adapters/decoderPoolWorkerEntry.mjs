// Worker threads do not inherit the main thread's tsx loader on Node 20: register it here,
// then load the TypeScript worker (as src/server/inference/workerEntry.mjs does).
import { register } from 'tsx/esm/api';

register();
await import('./decoderPoolWorker.ts');
