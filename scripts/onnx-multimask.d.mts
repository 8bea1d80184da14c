export declare const MULTIMASK_OUTPUTS: Readonly<{ lowResLogits: string; iouPredictions: string }>;
export declare class MultimaskDerivationError extends Error {}
export declare function deriveMultimaskDecoder(samOnnx: Uint8Array): Uint8Array;
