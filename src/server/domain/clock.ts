/** Injectable time source, so recovery-point tests can move past leases and reuse windows. */
export interface Clock {
  now(): number;
}
export const systemClock: Clock = { now: () => Date.now() };

/** Tests: follows the system clock plus an adjustable offset, or stands still when frozen. */
export class TestClock implements Clock {
  offsetMs = 0;
  frozenAt: number | undefined;
  now(): number {
    return this.frozenAt ?? Date.now() + this.offsetMs;
  }
  advance(ms: number): void {
    if (this.frozenAt !== undefined) this.frozenAt += ms;
    else this.offsetMs += ms;
  }
  freeze(): void {
    this.frozenAt = this.now();
  }
  unfreeze(): void {
    if (this.frozenAt !== undefined) this.offsetMs = this.frozenAt - Date.now();
    this.frozenAt = undefined;
  }
}
