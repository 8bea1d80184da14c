/** Inference worker thread: starts one InferenceService and serves it to the pool (pool.ts). */
import { parentPort } from 'node:worker_threads';
import { parentThreadPort } from '../../engine/adapters/nodePort';
import { serve } from '../../engine/service/transport';
import { InferenceService } from './inferenceService';
import { INFERENCE_TRANSFERS, type WorkerInit } from './protocol';

serve(parentThreadPort(parentPort), (init: WorkerInit) => InferenceService.start(init), { transfers: INFERENCE_TRANSFERS });
