/**
 * Where a session's embeddings wait for the encoder. The engine worker answers its requests in the
 * order they arrive, so twenty photos handed to it at once put the photo on screen (and every click
 * on it) behind nineteen encoder runs. Here they wait instead, one runs at a time, and a photo asked
 * for now (the one on screen, a click) goes before every photo asked for in the background: it waits
 * at most for the encoder run already under way.
 */
export type EmbedUrgency = 'now' | 'background';

interface Waiting {
  readonly key: string;
  readonly start: () => void;
}

export class EmbedQueue {
  private readonly waiting: Waiting[] = [];
  private busy = false;

  /** Runs `job` when its turn comes: `now` before everything that waits, `background` after it. */
  schedule<T>(key: string, job: () => Promise<T>, urgency: EmbedUrgency): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const entry: Waiting = {
        key,
        start: () => {
          let running: Promise<T>;
          try {
            running = job();
          } catch (error) {
            running = Promise.reject(error);
          }
          running
            .then(resolve, reject)
            .finally(() => {
              this.busy = false;
              this.next();
            });
        },
      };
      if (urgency === 'now') this.waiting.unshift(entry);
      else this.waiting.push(entry);
      this.next();
    });
  }

  /** A job still waiting for `key` moves to the front (the user now looks at that photo); false when none waits. */
  hurry(key: string): boolean {
    const index = this.waiting.findIndex((w) => w.key === key);
    if (index < 0) return false;
    const [entry] = this.waiting.splice(index, 1);
    this.waiting.unshift(entry!);
    return true;
  }

  /** Whether a job for `key` waits for its turn (not yet started). */
  isWaiting(key: string): boolean {
    return this.waiting.some((w) => w.key === key);
  }

  /** The keys that wait, next first. */
  waitingKeys(): string[] {
    return this.waiting.map((w) => w.key);
  }

  private next(): void {
    if (this.busy) return;
    const entry = this.waiting.shift();
    if (!entry) return;
    this.busy = true;
    entry.start();
  }
}
