/**
 * A Node worker thread serving the EngineApi on the real ONNX models, by the same transport and
 * EngineService as the browser's worker (start it with engineThreads.ts): Node tests drive the
 * transport and the studio's EngineSession against a real engine, and can crash its thread. The text
 * detectors only when asked (`detectors: true`): most tests need none, and they take seconds to load.
 */
import { parentPort } from 'node:worker_threads';
import { loadNodeEngine } from '../../src/engine/adapters/ortNode';
import { parentThreadPort } from '../../src/engine/adapters/nodePort';
import { ENGINE_TRANSFERS, type DecoderPrecision, type EncoderPrecision } from '../../src/engine/service/api';
import { EngineService } from '../../src/engine/service/engineService';
import { serve } from '../../src/engine/service/transport';
import { loadNodeDetectors } from '../../src/engine/adapters/textNode';
import { TextService, type DetectorLoader } from '../../src/engine/worker/textService';

export interface EngineThreadInit {
  encoderPrecision?: EncoderPrecision;
  decoderPrecision?: DecoderPrecision;
  embeddingCacheSize?: number;
  /** Every detector the text pipeline pools, loaded in the thread (text prompts, exemplars). */
  detectors?: boolean;
}

serve(
  parentThreadPort(parentPort),
  async (init: EngineThreadInit) => {
    const { detectors: withDetectors, ...engineInit } = init;
    const engine = await loadNodeEngine({ threads: 1, ...engineInit });
    const detectors = withDetectors ? await loadNodeDetectors({ threads: 1 }) : [];
    const loaders: DetectorLoader[] = detectors.map((d) => ({ name: d.name, vocabulary: d.vocabulary, load: async () => d }));
    const encoderModel = `sam-encoder-${init.encoderPrecision ?? 'fp32'}@node-test`;
    return new EngineService(engine, new TextService(engine, loaders), { backend: engine.backend, encoderModel });
  },
  { transfers: ENGINE_TRANSFERS },
);
