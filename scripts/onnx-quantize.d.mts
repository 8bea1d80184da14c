/** Matches the names of the decoder's image-side projections, the ones worth quantizing. */
export declare const IMAGE_SIDE_PROJECTIONS: RegExp;
export declare class QuantizationError extends Error {}
/** Symmetric per-column int8: W[k, n] ≈ q[k, n] · scale[n]. */
export declare function quantizePerColumn(weights: Float32Array, rows: number, cols: number): { q: Int8Array; scale: Float32Array };
/** Rewrites the image-side projections of a decoder graph as dynamically quantized int8 matrix products. */
export declare function quantizeDecoderProjections(modelBytes: Uint8Array, pattern?: RegExp): { bytes: Uint8Array; quantized: string[] };
