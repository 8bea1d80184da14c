export declare const MULTIMASK_OUTPUTS: Readonly<{ lowResLogits: string; iouPredictions: string }>;
export declare class MultimaskDerivationError extends Error {}
export declare function deriveMultimaskDecoder(samOnnx: Uint8Array): Uint8Array;
/** Keeps only the nodes the given outputs depend on, and only those outputs. */
export declare function pruneToOutputs(modelBytes: Uint8Array, outputNames: readonly string[]): Uint8Array;
