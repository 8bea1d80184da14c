/**
 * Transitional, until issue 25's engine transport drops the worker's `textPasses` start option
 * (worker/protocol.ts, worker/client.ts): the service takes one look per detector, so that option can
 * no longer carry anything. The detectors' extra looks are the bench's (bench/text/passes.ts), plugged
 * into the text pipeline through its detection rule hook (pool.ts). Delete this file with that option.
 */
export type DetectionPasses = never;
