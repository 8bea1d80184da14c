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

/**
 * Calls that may overlap (decoder runs asked ahead on worker threads), metered from the first one's
 * start until none is in progress: the process's CPU over that span, counted once. The workers' CPU is
 * the process's too; the main thread's own work between answers falls inside the span.
 */
function overlapMeter(into: PartCpu, part: keyof PartCpu) {
  let inProgress = 0;
  let start = process.cpuUsage();
  return async <T>(call: () => Promise<T>): Promise<T> => {
    if (inProgress++ === 0) start = process.cpuUsage();
    try {
      return await call();
    } finally {
      if (--inProgress === 0) {
        const used = process.cpuUsage(start);
        into[part] += (used.user + used.system) / 1000;
      }
    }
  };
}

/** The engine and detectors segment everything is given, each call's CPU time added to `into`. */
export function meterParts(engine: EverythingEngine, detectors: readonly ConceptDetector[], into: PartCpu): { engine: EverythingEngine; detectors: ConceptDetector[] } {
  const meteredDecode = overlapMeter(into, 'decodeMs');
  const meteredEngine: EverythingEngine = {
    getEmbedding: (key) => engine.getEmbedding(key),
    decodeConcurrency: engine.decodeConcurrency,
    decodeTokens: (key, prompt) => meteredDecode(() => engine.decodeTokens(key, prompt)),
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
