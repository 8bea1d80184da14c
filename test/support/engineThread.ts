/**
 * A Node worker thread serving the EngineApi on the real ONNX models, by the same transport and
 * EngineService as the browser's worker (start it with engineThreads.ts): Node tests drive the
 * transport and the studio's EngineSession against a real engine, and can crash its thread. No text
 * detectors: no test here needs one.
 */
import { parentPort } from 'node:worker_threads';
import { loadNodeEngine } from '../../src/engine/adapters/ortNode';
import { parentThreadPort } from '../../src/engine/adapters/nodePort';
import { ENGINE_TRANSFERS, type DecoderPrecision, type EncoderPrecision } from '../../src/engine/service/api';
import { EngineService } from '../../src/engine/service/engineService';
import { serve } from '../../src/engine/service/transport';
import { TextService } from '../../src/engine/worker/textService';

export interface EngineThreadInit {
  encoderPrecision?: EncoderPrecision;
  decoderPrecision?: DecoderPrecision;
  embeddingCacheSize?: number;
}

serve(
  parentThreadPort(parentPort),
  async (init: EngineThreadInit) => {
    const engine = await loadNodeEngine({ threads: 1, ...init });
    const encoderModel = `sam-encoder-${init.encoderPrecision ?? 'fp32'}@node-test`;
    return new EngineService(engine, new TextService(engine, []), { backend: engine.backend, encoderModel });
  },
  { transfers: ENGINE_TRANSFERS },
);
