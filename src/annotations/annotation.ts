import type { BinaryMask, BoxPrompt, PointPrompt, PolygonWithHoles } from '../engine/types';

/**
 * The annotation model (CVAT's shapes, Datumaro's `Annotation`): one type with a geometry kind,
 * shared by the studio, the server, the CLI, every format reader and writer, and the evals. It sits
 * below all of them and imports only the engine's plain geometry types.
 */

/** A photo of a dataset: what every annotation on it is placed against. */
export interface ImageEntry {
  readonly id: string;
  readonly name: string;
  readonly width: number;
  readonly height: number;
}

/** A class of the label list. `id` never changes and is what every export writes. */
export interface ClassDef {
  readonly id: number;
  readonly name: string;
  readonly color: string;
}

/**
 * Where an annotation stands in review — the one vocabulary of the studio, the wire and the files.
 * Proposals (what a machine suggested) wait as `unreviewed`: drawn apart, counted apart and left out
 * of exports until a person accepts them; a rejected one stays in the document, undrawn, so undo
 * brings it back and the same proposal is not made again.
 */
export type ReviewState = 'unreviewed' | 'accepted' | 'rejected';
export const REVIEW_STATES: readonly ReviewState[] = ['unreviewed', 'accepted', 'rejected'];

/** What proposed an annotation. */
/** `learned-classes`: "Label all like my labels" and `cli label`, classes learned from the person's own labels. */
export type ProposalSource = 'text-prompt' | 'find-similar' | 'segment-everything' | 'import' | 'learned-classes';
export const PROPOSAL_SOURCES: readonly ProposalSource[] = ['text-prompt', 'find-similar', 'segment-everything', 'import', 'learned-classes'];

export interface ObjectReview {
  readonly state: ReviewState;
  /** What proposed it (kept after it is accepted or rejected); absent: made by hand. */
  readonly source?: ProposalSource;
}

/** What made an annotation: the in-browser engine, the API, or a text prompt. */
export type InferenceSource = 'local' | 'remote' | 'text';

export interface RemoteReceipt {
  readonly requestId: string | null;
  readonly refunded: boolean;
}

/** The prompt a mask was made from, kept so a later refinement continues from it. */
export interface ObjectPrompt {
  readonly points: readonly PointPrompt[];
  readonly box: BoxPrompt | null;
}

/** [x, y, width, height] in image pixels. */
export type BoxGeometry = readonly [number, number, number, number];

/**
 * The geometry kinds. `mask` (the default, and what an annotation without `kind` is) holds pixels
 * and their outline; `box` a rectangle (detection datasets); `tag` nothing: a class of the whole
 * image (classification datasets). Open to more kinds (keypoints) as new members.
 */
export type AnnotationKind = 'mask' | 'box' | 'tag';
export const ANNOTATION_KINDS: readonly AnnotationKind[] = ['mask', 'box', 'tag'];

/**
 * One annotation. The geometry is told by `kind`: a mask has `polygons` (and optionally its pixels,
 * `mask`); a box has `box` and no polygons; a tag has neither. One flat type rather than a union of
 * interfaces so that edits common to every kind (class, review, visibility) stay one spread.
 */
export interface Annotation {
  readonly id: string;
  /** Absent: `mask` (objects written before kinds existed). */
  readonly kind?: AnnotationKind;
  readonly label: string;
  /** The class (ClassDef.id); absent or null = unlabelled. */
  readonly classId?: number | null;
  readonly confidence: number;
  readonly color: string;
  readonly visible: boolean;
  readonly source: InferenceSource;
  readonly receipt?: RemoteReceipt;
  /** Review state; absent = accepted (made by hand, or a session from before review existed). A proposal's confidence is `confidence`. */
  readonly review?: ObjectReview;
  /** A mask's polygons in original image pixels: with `mask`, its outline at the Detail slider's tolerance (what the view and the exports draw). Empty for boxes and tags. */
  readonly polygons: readonly PolygonWithHoles[];
  /** A box's rectangle. */
  readonly box?: BoxGeometry;
  /** A mask's full-resolution pixels when inference ran locally (or it was painted): the slider re-traces it. */
  readonly mask?: BinaryMask;
  /** The tolerance `polygons` were traced at from `mask`; unknown (absent) counts as out of date. */
  readonly outlineTolerance?: number;
  /** The prompt a mask was made from. */
  readonly prompt?: ObjectPrompt;
  /** The decoder's 256×256 logits of the accepted mask: a refinement feeds them back. */
  readonly lowResLogits?: Float32Array;
}

export const kindOf = (annotation: Pick<Annotation, 'kind'>): AnnotationKind => annotation.kind ?? 'mask';
export const isMask = (annotation: Pick<Annotation, 'kind'>) => kindOf(annotation) === 'mask';
export const isBox = (annotation: Pick<Annotation, 'kind' | 'box'>): annotation is Annotation & { kind: 'box'; box: BoxGeometry } => annotation.kind === 'box' && annotation.box !== undefined;
export const isTag = (annotation: Pick<Annotation, 'kind'>) => annotation.kind === 'tag';

/** An image's annotations with the photos and classes they refer to: a dataset in memory. */
export interface AnnotatedImages {
  readonly images: readonly ImageEntry[];
  readonly objects: Readonly<Record<string, readonly Annotation[]>>;
  readonly classes: readonly ClassDef[];
}

/** A palette readable over photos, cycled by object index. */
export const OBJECT_COLORS = ['#ff5c5c', '#3fa7ff', '#ffc83d', '#4cd98b', '#c77dff', '#ff8c42', '#2ee6d6', '#ff6fb5', '#a3e635', '#8b9dff'];

export function colorForIndex(index: number): string {
  return OBJECT_COLORS[index % OBJECT_COLORS.length];
}

/** The next class id: above every id listed and every id handed out before (`lastClassId`), so a deleted class's id is not reused. */
export function nextClassId(classes: readonly ClassDef[], lastClassId = 0): number {
  return classes.reduce((max, c) => Math.max(max, c.id), lastClassId) + 1;
}
