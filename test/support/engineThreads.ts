/** Starts the EngineApi on the real ONNX models in a Node worker thread (engineThread.ts). */
import { Worker } from 'node:worker_threads';
import { workerThreadPort } from '../../src/engine/adapters/nodePort';
import { ENGINE_ERRORS, ENGINE_TRANSFERS, type EngineApi } from '../../src/engine/service/api';
import { connect } from '../../src/engine/service/transport';
import type { EngineWorker } from '../../src/engine/worker/client';
import type { EngineThreadInit } from './engineThread';

/** Starts a thread serving the EngineApi; `thread` is there so a test can crash it. */
export async function startEngineThread(init: EngineThreadInit = {}): Promise<EngineWorker & { thread: Worker }> {
  const thread = new Worker(new URL('./engineThreadEntry.mjs', import.meta.url), { execArgv: [] });
  const { api, close, gone } = await connect<EngineApi, EngineThreadInit>(workerThreadPort(thread), init, { transfers: ENGINE_TRANSFERS, errors: ENGINE_ERRORS });
  return { api, description: await api.describe(), terminate: close, gone, thread };
}
