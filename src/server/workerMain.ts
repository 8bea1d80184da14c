/** `npm run worker`: one job worker process, under the malloc setting however it was started (mallocSetting.ts). */
import { relaunchedUnderMallocSetting } from './mallocSetting';

// Imported only where it works: the relaunching process stays small.
if (!relaunchedUnderMallocSetting()) await import('./jobWorkerFromEnv');
