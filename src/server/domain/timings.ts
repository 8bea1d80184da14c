/** Where a call's time went, by phase (ms): the API reports it as Server-Timing. */
export type Timings = Record<string, number>;

/** Runs `work` (synchronous), adding its duration to `timings[name]`. */
export function timedSync<T>(timings: Timings | undefined, name: string, work: () => T): T {
  const start = performance.now();
  try {
    return work();
  } finally {
    if (timings) timings[name] = (timings[name] ?? 0) + (performance.now() - start);
  }
}

/** Runs `work`, adding its duration to `timings[name]`. */
export async function timed<T>(timings: Timings | undefined, name: string, work: () => Promise<T>): Promise<T> {
  const start = performance.now();
  try {
    return await work();
  } finally {
    if (timings) timings[name] = (timings[name] ?? 0) + (performance.now() - start);
  }
}
