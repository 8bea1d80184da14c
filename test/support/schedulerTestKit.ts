import type { BinaryMask, VisualPrompt } from '../../src/engine/types';
import type { EarlyMask } from '../../src/app/state/earlyMaskStore';
import type { HoverPreview } from '../../src/app/state/hoverPreviewStore';
import type { LocalCandidate } from '../../src/app/inference/engineSession';
import type { EarlyMaskSink, HoverPreviewSink, LocalDecoder, SchedulerClock } from '../../src/app/inference/schedulerPorts';
import type { StudioDecodeOptions } from '../../src/app/inference/localDecodeRequest';

/**
 * What the scheduler's tests stand in for the engine worker (a Web Worker, absent under Node):
 * every decode is recorded and answered when the test says, so the tests choose the order in
 * which answers arrive — the behaviour under test.
 */
export class HeldDecoder implements LocalDecoder {
  readonly calls: {
    imageId: string;
    prompt: VisualPrompt;
    options: StudioDecodeOptions;
    /** The decoder has answered; the outlines are still being traced (the worker's early mask). */
    mask(mask: BinaryMask): void;
    answer(candidates: LocalCandidate[]): void;
    fail(error: Error): void;
  }[] = [];
  embedded = true;

  isEmbedded(): boolean {
    return this.embedded;
  }

  /** The mirror passes asked for, answered (or failed) when the test says. */
  readonly mirrorPasses: { imageId: string; prompt: VisualPrompt; options: StudioDecodeOptions; answer(candidates: LocalCandidate[]): void; fail(error: Error): void }[] = [];

  predict(imageId: string, prompt: VisualPrompt, options: StudioDecodeOptions, onMask?: (mask: BinaryMask) => void): Promise<LocalCandidate[]> {
    return new Promise((resolve, reject) => this.calls.push({ imageId, prompt, options, mask: (m) => onMask?.(m), answer: resolve, fail: reject }));
  }

  mirrorPass(imageId: string, prompt: VisualPrompt, options: StudioDecodeOptions): Promise<LocalCandidate[]> {
    return new Promise((resolve, reject) => this.mirrorPasses.push({ imageId, prompt, options, answer: resolve, fail: reject }));
  }
}

/** A candidate whose one square outline is `size` pixels wide: tests tell answers apart by it. */
export function squareCandidate(size: number, score = 0.9): LocalCandidate {
  const ring: [number, number][] = [
    [0, 0],
    [size, 0],
    [size, size],
    [0, size],
  ];
  return { polygons: [{ outer: ring, holes: [] }], score, area: size * size, lowResLogits: new Float32Array([size]), mask: { width: 1, height: 1, data: new Uint8Array(1) }, outlineTolerance: 0 };
}

/** Time that moves only when the test says. */
export class ManualClock implements SchedulerClock {
  private time = 0;
  private timers: { at: number; run: () => void }[] = [];

  now(): number {
    return this.time;
  }

  later(run: () => void, ms: number): () => void {
    const timer = { at: this.time + ms, run };
    this.timers.push(timer);
    return () => {
      this.timers = this.timers.filter((t) => t !== timer);
    };
  }

  advance(ms: number): void {
    this.time += ms;
    const due = this.timers.filter((t) => t.at <= this.time);
    this.timers = this.timers.filter((t) => t.at > this.time);
    for (const timer of due) timer.run();
  }
}

export class PreviewShown implements HoverPreviewSink {
  preview: HoverPreview | null = null;
  current(): HoverPreview | null {
    return this.preview;
  }
  show(preview: HoverPreview | null): void {
    this.preview = preview;
  }
}

/** Records what the scheduler draws ahead of the polygons, in order. */
export class EarlyMasksShown implements EarlyMaskSink {
  current: EarlyMask | null = null;
  readonly shown: EarlyMask[] = [];
  show(early: EarlyMask): void {
    this.current = early;
    this.shown.push(early);
  }
  clear(imageId: string, revision: number): void {
    if (this.current?.imageId === imageId && this.current.revision === revision) this.current = null;
  }
}

/** Lets every already-settled promise callback run. */
export const settled = () => new Promise<void>((resolve) => setTimeout(resolve, 0));
