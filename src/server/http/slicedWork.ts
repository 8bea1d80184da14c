/**
 * Work that arrives in bursts done a slice at a time, so the event loop answers other requests
 * between slices. Node checks every open connection against its deadlines in one go
 * (http/deadlines.ts): when thousands of slow or idle sockets opened together run out together,
 * answering each one's 408 at once held the loop for one long piece (issue 39's 8,000 sockets).
 */
export class SlicedWork {
  private readonly queue: Array<() => void> = [];
  private scheduled = false;

  /** `sliceMs`: how long one slice may run before the loop gets a turn. */
  constructor(private readonly sliceMs = 5) {}

  add(task: () => void): void {
    this.queue.push(task);
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(() => this.runSlice());
    }
  }

  /** Tasks waiting (read by tests). */
  get waiting(): number {
    return this.queue.length;
  }

  private runSlice(): void {
    const until = performance.now() + this.sliceMs;
    // One task at least per slice, whatever it costs: the queue always moves.
    do {
      const task = this.queue.shift();
      if (!task) break;
      try {
        task();
      } catch {
        // A task's failure is its own (a socket that went away); the others still run.
      }
    } while (performance.now() < until);
    if (this.queue.length) setImmediate(() => this.runSlice());
    else this.scheduled = false;
  }
}
