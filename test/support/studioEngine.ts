/**
 * The studio's EngineSession (src/app/inference/engineSession.ts) on a real engine thread with the
 * detectors and the int8 models, for Node tests of what the studio asks of its engine. Nothing is
 * stored and Server start is off.
 */
import { EngineSession } from '../../src/app/inference/engineSession';
import { useEngineStatus } from '../../src/app/state/engineStatus';
import type { RgbaImage } from '../../src/engine/types';
import { startEngineThread } from './engineThreads';

export function studioEngineSession(pixels: (imageId: string) => RgbaImage | undefined, embeddingCacheSize?: number): EngineSession {
  return new EngineSession({
    launch: (options) =>
      startEngineThread({ encoderPrecision: options.encoderPrecision, decoderPrecision: options.decoderPrecision, embeddingCacheSize: embeddingCacheSize ?? options.embeddingCacheSize, detectors: true }),
    models: () => ({ encoder: 'int8', decoder: 'int8' }),
    status: () => useEngineStatus.getState(),
    pixels,
    stored: { load: async () => undefined, save: async () => undefined },
    serverEmbedding: async () => {
      throw new Error('Server start is off here');
    },
    serverStart: () => false,
  });
}
