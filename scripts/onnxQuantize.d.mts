/** Matches the names of the decoder's image-side projections, the ones worth quantizing. */
export declare const IMAGE_SIDE_PROJECTIONS: RegExp;
export declare class QuantizationError extends Error {}
/** The float32 values of an initializer or a Constant's tensor. */
export declare function floatsOf(tensor: unknown): Float32Array;
/** Symmetric per-column int8: W[k, n] ≈ q[k, n] · scale[n]. */
export declare function quantizePerColumn(weights: Float32Array, rows: number, cols: number): { q: Int8Array; scale: Float32Array };
/** Rewrites the image-side projections of a decoder graph as dynamically quantized int8 matrix products. */
export declare function quantizeDecoderProjections(modelBytes: Uint8Array, pattern?: RegExp): { bytes: Uint8Array; quantized: string[] };
/** Symmetric per-row int8 (rows = output channels): W[m, ·] ≈ q[m, ·] · scale[m]. */
export declare function quantizePerRow(weights: Float32Array, rows: number, cols: number): { q: Int8Array; scale: Float32Array };
export interface QuantizeOptions {
  /** MatMuls (by node name) whose 2-D weight initializers become int8; null for none. Default: all. */
  matmul?: RegExp | null;
  /** Non-grouped convolutions to int8 (ConvInteger). Default false. */
  conv?: boolean;
  /** Fewest input channels for a convolution to be quantized. Default 32. */
  convMinInputs?: number;
  /** The erf GELU → com.microsoft FastGelu. Default false. */
  fastGelu?: boolean;
}
/** Rewrites a float graph with int8 weight products and/or FastGelu; see scripts/onnxQuantize.mjs. */
export declare function quantizeModel(
  modelBytes: Uint8Array,
  options?: QuantizeOptions,
): { bytes: Uint8Array; quantized: string[]; fastGelus: number };
