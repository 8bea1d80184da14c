/** Inference worker thread: starts the Node engine and serves its EngineApi to the pool (pool.ts), as the browser's worker serves its own. */
import { parentPort } from 'node:worker_threads';
import { parentThreadPort } from '../../engine/adapters/nodePort';
import { startNodeEngine } from '../../engine/adapters/nodeEngine';
import { ENGINE_TRANSFERS } from '../../engine/service/api';
import { serve } from '../../engine/service/transport';

serve(parentThreadPort(parentPort), startNodeEngine, { transfers: ENGINE_TRANSFERS });
