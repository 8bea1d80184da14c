/**
 * One worker of a pooled decoder session: its own onnxruntime-node session, the large inputs the
 * main thread handed over (decoderPoolProtocol.ts), one run at a time. Node-only.
 */
import { parentPort, workerData } from 'node:worker_threads';
import * as ort from 'onnxruntime-node';
import type { FromPoolWorker, PoolInit, ToPoolWorker } from './decoderPoolProtocol';

const port = parentPort!;
const init = workerData as PoolInit;
const held = new Map<number, ort.Tensor>();
const post = (message: FromPoolWorker, transfer: ArrayBuffer[] = []) => port.postMessage(message, transfer);

try {
  const options: ort.InferenceSession.SessionOptions = { executionProviders: ['cpu'], graphOptimizationLevel: 'all', intraOpNumThreads: init.threads, interOpNumThreads: 1 };
  const session = typeof init.model === 'string' ? await ort.InferenceSession.create(init.model, options) : await ort.InferenceSession.create(init.model, options);
  port.on('message', async (message: ToPoolWorker) => {
    if (message.kind === 'release') {
      await session.release();
      port.close();
      return;
    }
    try {
      for (const number of message.drop) held.delete(number);
      const feeds: Record<string, ort.Tensor> = {};
      for (const [name, input] of Object.entries(message.feeds)) {
        const known = input.held === undefined ? undefined : held.get(input.held);
        if (input.data) {
          const tensor = new ort.Tensor('float32', input.data, [...input.dims]);
          if (input.held !== undefined) held.set(input.held, tensor);
          feeds[name] = tensor;
        } else if (known) {
          feeds[name] = known;
        } else {
          throw new Error(`input ${name} names held tensor ${input.held}, which this worker does not hold`);
        }
      }
      const results = message.fetches ? await session.run(feeds, [...message.fetches]) : await session.run(feeds);
      const outputs: Record<string, { dims: readonly number[]; data: Float32Array }> = {};
      const transfer: ArrayBuffer[] = [];
      for (const [name, value] of Object.entries(results)) {
        if (value.type !== 'float32') throw new Error(`output ${name} has type ${value.type}, expected float32`);
        // A copy of its own: the runtime may reuse the output's buffer, and this one is handed over.
        const data = (value.data as Float32Array).slice();
        outputs[name] = { dims: value.dims, data };
        transfer.push(data.buffer as ArrayBuffer);
      }
      post({ kind: 'done', id: message.id, outputs }, transfer);
    } catch (error) {
      post({ kind: 'error', id: message.id, message: (error as Error).message });
    }
  });
  post({ kind: 'ready', inputNames: session.inputNames, outputNames: session.outputNames });
} catch (error) {
  post({ kind: 'failed', message: (error as Error).message });
}
