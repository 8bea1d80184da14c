// Worker threads do not inherit the main thread's tsx loader on Node 20: register it here,
// then load the TypeScript worker. (The server always runs through tsx; see src/server/README.md.)
import { register } from 'tsx/esm/api';

register();
await import('./worker.ts');
