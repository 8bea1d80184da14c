import type { BinaryMask, BoxPrompt, PointPrompt, PolygonWithHoles } from '../../engine/types';

/** Plain data of a studio session. Everything here is immutable; changes go through the history store. */

export interface ImageEntry {
  readonly id: string;
  readonly name: string;
  readonly width: number;
  readonly height: number;
}

export type InferenceSource = 'local' | 'remote' | 'text';

export interface RemoteReceipt {
  readonly requestId: string | null;
  readonly refunded: boolean;
}

/** A class of the session's label list. `id` never changes and is what every export writes. */
export interface ClassDef {
  readonly id: number;
  readonly name: string;
  readonly color: string;
}

/** The prompt an object was made from, kept so a later refinement continues from it. */
export interface ObjectPrompt {
  readonly points: readonly PointPrompt[];
  readonly box: BoxPrompt | null;
}

export interface SegObject {
  readonly id: string;
  readonly label: string;
  /** The session class (ClassDef.id); absent or null = unlabelled. */
  readonly classId?: number | null;
  readonly prompt?: ObjectPrompt;
  /** The decoder's 256×256 logits of the accepted mask: a refinement feeds them back. */
  readonly lowResLogits?: Float32Array;
  readonly confidence: number;
  readonly color: string;
  readonly visible: boolean;
  /** Polygons in original image pixels: with a mask, its outline at the Detail slider's tolerance (what the view and the exports draw). */
  readonly polygons: readonly PolygonWithHoles[];
  /** Full-resolution mask when inference ran locally (or it was painted): the slider re-traces it, in the engine worker. */
  readonly mask?: BinaryMask;
  /** The tolerance `polygons` were traced at from `mask`; unknown (absent) counts as out of date. */
  readonly outlineTolerance?: number;
  readonly source: InferenceSource;
  readonly receipt?: RemoteReceipt;
  /** A project's review of it (server projects, issue 28); absent = not reviewed. */
  readonly review?: 'accepted' | 'rejected';
}

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
  readonly objects: Readonly<Record<string, readonly SegObject[]>>;
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

/** A palette readable over photos, cycled by object index. */
export const OBJECT_COLORS = ['#ff5c5c', '#3fa7ff', '#ffc83d', '#4cd98b', '#c77dff', '#ff8c42', '#2ee6d6', '#ff6fb5', '#a3e635', '#8b9dff'];

export function colorForIndex(index: number): string {
  return OBJECT_COLORS[index % OBJECT_COLORS.length];
}
