import type { DecoderPrecision, EncoderPrecision } from '../../engine/service/api';

export interface ModelVariants {
  readonly encoder: EncoderPrecision;
  readonly decoder: DecoderPrecision;
}

/**
 * The browser's model variants (scripts/onnxQuantize.mjs): int8 where `npm run bench` measured
 * them faster in Chromium on the same run and `npm run eval` kept NoC@90 within +0.05 of fp32
 * (docs/RESULTS.md). The server picks its own (INFERENCE_ENCODER / INFERENCE_DECODER).
 */
export const BROWSER_DEFAULT_VARIANTS: ModelVariants = { encoder: 'int8', decoder: 'int8' };

/** `?models=fp32` (or `int8`) on the page URL overrides both: the reference models stay selectable. */
export function browserModelVariants(search: string = globalThis.location?.search ?? ''): ModelVariants {
  const chosen = new URLSearchParams(search).get('models');
  if (chosen === 'fp32' || chosen === 'int8') return { encoder: chosen, decoder: chosen };
  return BROWSER_DEFAULT_VARIANTS;
}

export function describeVariants(variants: ModelVariants): string {
  return variants.encoder === variants.decoder ? `${variants.encoder} models` : `encoder ${variants.encoder} · decoder ${variants.decoder}`;
}
