/**
 * Process CPU time spent inside each part of segment everything (the box detectors, the decoder, the
 * tiles' encoder runs), read around every call of a wrapped engine and wrapped detectors. With one
 * onnxruntime thread this is the work a part does, which the other engineers' load on the shared
 * cores does not inflate the way it inflates wall time.
 */
import type { EverythingEngine } from '../../src/engine/everything/segmentEverything';
import type { ConceptDetector } from '../../src/engine/text/detector';

export interface PartCpu {
  detectMs: number;
  decodeMs: number;
  tileEncodeMs: number;
}

export function emptyPartCpu(): PartCpu {
  return { detectMs: 0, decodeMs: 0, tileEncodeMs: 0 };
}

async function metered<T>(into: PartCpu, part: keyof PartCpu, call: () => Promise<T>): Promise<T> {
  const start = process.cpuUsage();
  try {
    return await call();
  } finally {
    const used = process.cpuUsage(start);
    into[part] += (used.user + used.system) / 1000;
  }
}

/** The engine and detectors segment everything is given, each call's CPU time added to `into`. */
export function meterParts(engine: EverythingEngine, detectors: readonly ConceptDetector[], into: PartCpu): { engine: EverythingEngine; detectors: ConceptDetector[] } {
  const meteredEngine: EverythingEngine = {
    getEmbedding: (key) => engine.getEmbedding(key),
    decodeConcurrency: engine.decodeConcurrency,
    decodeTokens: (key, prompt) => metered(into, 'decodeMs', () => engine.decodeTokens(key, prompt)),
    ...(engine.embedScratch ? { embedScratch: (picture, key) => metered(into, 'tileEncodeMs', () => engine.embedScratch!(picture, key)) } : {}),
    ...(engine.forget ? { forget: (key?: string) => engine.forget!(key) } : {}),
  };
  const meteredDetectors = detectors.map(
    (d): ConceptDetector => ({
      name: d.name,
      vocabulary: d.vocabulary,
      inputSize: d.inputSize,
      detect: (image, options) => metered(into, 'detectMs', () => d.detect(image, options)),
      release: () => d.release(),
    }),
  );
  return { engine: meteredEngine, detectors: meteredDetectors };
}
