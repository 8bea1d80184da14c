// Worker threads do not inherit the main thread's tsx loader on Node 20: register it here, then
// load the TypeScript thread (as src/server/inference/workerEntry.mjs does for the server's workers).
import { register } from 'tsx/esm/api';

register();
await import('./engineThread.ts');
