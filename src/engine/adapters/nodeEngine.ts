/**
 * The Node engine as an EngineApi, the counterpart of the browser's webEngine.ts: the SAM models and
 * every detector of the catalog from public/models on onnxruntime-node, served as they are by the
 * server's inference worker threads (src/server/inference/worker.ts) over the engine's transport. A
 * capability added to EngineApi is there without a line here. Node-only.
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { samFiles } from '../catalog';
import type { DecoderPrecision, EncoderPrecision } from '../service/api';
import { EngineService } from '../service/engineService';
import { TextService } from '../worker/textService';
import { defaultModelDir, loadNodeEngine } from './ortNode';
import { loadNodeDetectors } from './textNode';

export interface NodeEngineOptions {
  modelDir?: string;
  encoderPrecision?: EncoderPrecision;
  decoderPrecision?: DecoderPrecision;
  /** Intra-op threads of every ONNX session (default: the available cores). */
  threads?: number;
  embeddingCacheSize?: number;
}

/** `file@sha256` of the encoder file, as the browser names the one it loaded (manifest.json's digest). */
async function encoderModelOf(options: NodeEngineOptions): Promise<string> {
  const file = samFiles({ encoderPrecision: options.encoderPrecision }).encoder;
  const bytes = await readFile(join(options.modelDir ?? defaultModelDir(), file));
  return `${file}@${createHash('sha256').update(bytes).digest('hex')}`;
}

/**
 * Loads the SAM engine and every detector before it answers: a server's first text prompt or segment
 * everything must not wait for a model, and each prompt pools every detector that knows its class.
 */
export async function startNodeEngine(options: NodeEngineOptions = {}): Promise<EngineService> {
  const { modelDir, threads } = options;
  const engine = await loadNodeEngine(options);
  const detectors = await loadNodeDetectors({ modelDir, threads });
  const text = new TextService(
    engine,
    detectors.map((detector) => ({ name: detector.name, vocabulary: detector.vocabulary, load: async () => detector })),
  );
  // Marks every detector as loaded now, so the first prompt already pools all that cover it.
  await text.detectorsOfEveryClass();
  return new EngineService(engine, text, { backend: engine.backend, encoderModel: await encoderModelOf(options) });
}
