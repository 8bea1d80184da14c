/** The layer-0 projections of the keys that the precompute model computes once per image. */
export declare const IMAGE_ONLY_PROJECTIONS: readonly string[];
/** The precompute model's output for one projection, and the per-click model's input of the same name. */
export declare function precomputedName(projection: string): string;
export declare class DecoderSplitError extends Error {}
/** Splits the float decoder into a per-image precompute model and a per-click model; see scripts/onnxDecoderSplit.mjs. */
export declare function splitDecoder(decoderBytes: Uint8Array): { precompute: Uint8Array; perClick: Uint8Array; precomputedNames: string[] };
