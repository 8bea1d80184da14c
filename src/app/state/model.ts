import type { Annotation, ClassDef, ImageEntry, RemoteReceipt } from '../../annotations/annotation';
import type { BinaryMask, BoxPrompt, PointPrompt, PolygonWithHoles } from '../../engine/types';

/** Plain data of a studio session. Everything here is immutable; changes go through the history store. */

export interface Candidate {
  /** Traced by the engine worker from `mask` (local) or given by the API (remote, no mask). */
  readonly polygons: readonly PolygonWithHoles[];
  readonly score: number;
  readonly area: number;
  readonly mask?: BinaryMask;
  /** The tolerance `polygons` were traced at from `mask`. */
  readonly outlineTolerance?: number;
  readonly lowResLogits?: Float32Array;
  readonly receipt?: RemoteReceipt;
}

export type PromptStatus = 'idle' | 'pending' | 'waiting' | 'done' | 'error';

/** The object being prompted on one image: its clicks, its box and the decoder's answers. */
export interface PromptState {
  /** Changes with every prompt edit; an async result is applied only to the revision it was asked for. */
  readonly revision: number;
  readonly points: readonly PointPrompt[];
  readonly box: BoxPrompt | null;
  readonly candidates: readonly Candidate[];
  readonly selected: number;
  readonly status: PromptStatus;
  readonly message: string | null;
  /** Set while an accepted object is being refined: accepting replaces that object. */
  readonly targetObjectId?: string | null;
  /** The candidates are the mirror pass's (averaged with the mirror image's answer while the user paused). */
  readonly mirrorPassed?: boolean;
}

export interface StudioDocument {
  readonly images: readonly ImageEntry[];
  readonly activeImageId: string | null;
  readonly objects: Readonly<Record<string, readonly Annotation[]>>;
  readonly prompts: Readonly<Record<string, PromptState>>;
  /** The session's class list, in the order the user arranged it (keys 1–9 follow this order). */
  readonly classes: readonly ClassDef[];
  /** The class newly accepted objects take. */
  readonly activeClassId: number | null;
  /** The highest class id ever handed out (absent: the highest id listed), so a deleted class's id is not reused. */
  readonly lastClassId?: number;
}

export const emptyPrompt = (revision = 0): PromptState => ({
  revision,
  points: [],
  box: null,
  candidates: [],
  selected: 0,
  status: 'idle',
  message: null,
});

export const emptyDocument = (): StudioDocument => ({ images: [], activeImageId: null, objects: {}, prompts: {}, classes: [], activeClassId: null });

export function hasPrompt(prompt: PromptState): boolean {
  return prompt.box !== null || prompt.points.some((p) => p.positive !== false);
}
