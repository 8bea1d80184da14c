/** Inference worker thread: owns one engine (ONNX sessions + embedding cache) and runs jobs in order. */
import { parentPort, workerData } from 'node:worker_threads';
import { loadNodeEngine } from '../../engine/adapters/ort-node';
import { runPvs } from '../../engine/pvs';
import type { InferenceJob, InferenceResult, WorkerInit, WorkerReply, WorkerRequest } from './protocol';
import { createTextSegmenter } from './text-segmenter';

const port = parentPort;
if (!port) throw new Error('worker.ts must run in a worker thread');

const init = (workerData ?? {}) as WorkerInit;

async function main(): Promise<void> {
  const engine = await loadNodeEngine({
    modelDir: init.modelDir,
    threads: init.threads,
    embeddingCacheSize: init.embeddingCacheSize,
  });
  const textSegmenter = await createTextSegmenter(engine);

  async function run(job: InferenceJob): Promise<InferenceResult> {
    if (job.kind === 'pvs') {
      const { response } = await runPvs(engine, job.image, {
        points: job.points,
        box: job.box,
        imageId: job.cacheKey,
        multimaskOutput: job.multimaskOutput,
      });
      return { kind: 'pvs', response };
    }
    return { kind: 'segment', response: await textSegmenter.segment(job.image, job.prompts, job.cacheKey) };
  }

  port!.on('message', (message: WorkerRequest) => {
    run(message.job).then(
      (result) => port!.postMessage({ id: message.id, ok: true, result } satisfies WorkerReply),
      (error: unknown) => {
        const e = error instanceof Error ? error : new Error(String(error));
        port!.postMessage({ id: message.id, ok: false, error: { name: e.name, message: e.message } } satisfies WorkerReply);
      },
    );
  });
  port!.postMessage({ ready: true, backend: `${engine.backend.name} x${engine.backend.threads}` } satisfies WorkerReply);
}

main().catch((error: unknown) => {
  port.postMessage({ ready: false, error: error instanceof Error ? error.message : String(error) } satisfies WorkerReply);
});
