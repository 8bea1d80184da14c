import type { BinaryMask, VisualPrompt } from '../../engine/types';
import type { EarlyMask } from '../state/earlyMaskStore';
import type { HoverPreview } from '../state/hoverPreviewStore';
import type { InferenceMode } from '../state/inferenceModeStore';
import type { Candidate, PromptState } from '../state/model';
import type { ImageEntry } from '../../annotations/annotation';
import type { RemoteSettings } from '../state/remoteSettingsStore';
import type { ToolId } from '../tools/registry';
import type { LocalCandidate } from './engineSession';
import type { StudioDecodeOptions } from './localDecodeRequest';

/** What the inference scheduler reads and writes of the document: prompts in, answers out by revision. */
export interface PromptDocument {
  prompt(imageId: string): PromptState;
  image(imageId: string): ImageEntry | undefined;
  markPending(imageId: string, revision: number, status: 'pending' | 'waiting', message?: string | null): void;
  /** Lands only on snapshots still at `revision`: a later edit is never overwritten by an older answer. */
  resolve(imageId: string, revision: number, candidates: readonly Candidate[], emptyMessage?: string): void;
  /**
   * The mirror pass's candidates replace `basis` — only if the prompt still shows exactly those, at
   * `revision`, with the candidate the answer chose still selected (the user's own pick stands).
   */
  applyMirrorPass(imageId: string, revision: number, basis: readonly Candidate[], candidates: readonly Candidate[]): void;
  fail(imageId: string, revision: number, message: string): void;
}

/** The model in this browser (the engine worker). */
export interface LocalDecoder {
  /** True once the image's embedding is ready, so a decode answers at once. */
  isEmbedded(imageId: string): boolean;
  /** `onMask`: the best mask as soon as the decoder answers, before its outlines are traced. */
  predict(imageId: string, prompt: VisualPrompt, options: StudioDecodeOptions, onMask?: (mask: BinaryMask) => void): Promise<LocalCandidate[]>;
  /** The same decode with mirror averaging (the pause step, mirrorPass.ts); absent: no mirror pass. */
  mirrorPass?(imageId: string, prompt: VisualPrompt, options: StudioDecodeOptions): Promise<LocalCandidate[]>;
}

/** Where a click's mask is drawn before its polygons are ready. */
export interface EarlyMaskSink {
  show(early: EarlyMask): void;
  clear(imageId: string, revision: number): void;
}

export interface RemoteAnswer {
  readonly candidates: Candidate[];
  readonly requestId: string | null;
  readonly refunded: boolean;
}

/** The metered API (one credit per call). */
export interface RemoteSegmenter {
  /** Why the call would be refused before it is made (for example no credits), or null. */
  refusal(settings: RemoteSettings): Promise<string | null>;
  segment(request: {
    image: ImageEntry;
    prompt: PromptState;
    settings: RemoteSettings;
    idempotencyKey: string;
    onWaiting(reason: string, seconds: number): void;
  }): Promise<RemoteAnswer>;
  /** After every call, answered or not: the balance may have changed. */
  finished(): void;
}

/** The user's settings as they are now (read at the moment they matter, never cached). */
export interface SchedulerSettings {
  readonly mode: InferenceMode;
  readonly tool: ToolId;
  readonly tolerance: number;
  readonly remote: RemoteSettings;
  /** Whether local answers get the mirror pass when the user pauses (it runs this device's encoder once per photo). */
  readonly mirrorPass: boolean;
}

export interface HoverPreviewSink {
  current(): HoverPreview | null;
  show(preview: HoverPreview | null): void;
}

/** Time for the hover throttle; tests drive it by hand. */
export interface SchedulerClock {
  now(): number;
  /** Runs `run` after `ms`; returns a cancel. */
  later(run: () => void, ms: number): () => void;
}

export const realClock: SchedulerClock = {
  now: () => performance.now(),
  later: (run, ms) => {
    const timer = setTimeout(run, ms);
    return () => clearTimeout(timer);
  },
};
