export declare class DecoderUpscalingError extends Error {}
/** ConvTranspose 2 × 2 / stride 2 weights [in, out, 2, 2] as one matrix [in, 4·out] and its repeated bias. */
export declare function blockMatrix(weights: Float32Array, bias: Float32Array, inputs: number, outputs: number): { matrix: Float32Array; bias: Float32Array };
/** The decoder with its mask head computed channels last; see scripts/onnxDecoderUpscaling.mjs. */
export declare function tokenMajorUpscaling(modelBytes: Uint8Array): Uint8Array;
