/** `npm run serve`: the API server, under the malloc setting however it was started (mallocSetting.ts). */
import { relaunchedUnderMallocSetting } from './mallocSetting';

// Imported only where it serves: the relaunching process stays small.
if (!relaunchedUnderMallocSetting()) await import('./serveFromEnv');
