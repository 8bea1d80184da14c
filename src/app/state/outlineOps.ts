import type { BinaryMask, PolygonWithHoles } from '../../engine/types';
import type { Candidate, PromptState, StudioDocument } from './model';
import type { Annotation } from '../../annotations/annotation';

/**
 * The outline of an object or candidate with a mask is its mask traced at the Detail slider's
 * tolerance, once, where the mask is (the engine worker for its results, the page for masks painted
 * here); `outlineTolerance` records the tolerance, and the view and the exports draw `polygons` as
 * they are. An outline whose tolerance is not the slider's is out of date: it is traced again in the
 * worker and the new one replaces it here, without an undo step.
 */

/** How a mask made here is outlined: at the Detail slider's tolerance, recorded with the polygons. */
export interface Outline {
  readonly tolerance: number;
}

type Outlined = Annotation | Candidate;

const outOfDate = (item: Outlined, tolerance: number) => item.mask !== undefined && item.outlineTolerance !== tolerance;

/** The distinct masks of the document's objects and candidates whose outline is not at `tolerance`. */
export function masksOutOfDate(doc: StudioDocument, tolerance: number): BinaryMask[] {
  const masks = new Set<BinaryMask>();
  const consider = (item: Outlined) => outOfDate(item, tolerance) && masks.add(item.mask!);
  for (const objects of Object.values(doc.objects)) objects.forEach(consider);
  for (const prompt of Object.values(doc.prompts)) prompt.candidates.forEach(consider);
  return [...masks];
}

type Outlines = ReadonlyMap<BinaryMask, readonly PolygonWithHoles[]>;

function retraced<T extends Outlined>(item: T, outlines: Outlines, tolerance: number): T {
  const polygons = item.mask && outOfDate(item, tolerance) && outlines.get(item.mask);
  return polygons ? { ...item, polygons, outlineTolerance: tolerance } : item;
}

/** Keeps the array (and so every unchanged parent) when none of its items changed. */
function mapKept<T>(items: readonly T[], change: (item: T) => T): readonly T[] {
  const next = items.map(change);
  return next.every((item, i) => item === items[i]) ? items : next;
}

/**
 * The document with the outlines traced at `tolerance` in place of the out-of-date ones of the same
 * masks; the same document when none changes. Applied to every snapshot of the history, so undo
 * finds the objects it shares with the present already re-traced.
 */
export function withOutlines(doc: StudioDocument, outlines: Outlines, tolerance: number): StudioDocument {
  let objects = doc.objects;
  for (const [imageId, list] of Object.entries(doc.objects)) {
    const next = mapKept(list, (o) => retraced(o, outlines, tolerance));
    if (next !== list) objects = { ...objects, [imageId]: next };
  }
  let prompts = doc.prompts;
  for (const [imageId, prompt] of Object.entries(doc.prompts)) {
    const candidates = mapKept(prompt.candidates, (c) => retraced(c, outlines, tolerance));
    if (candidates !== prompt.candidates) prompts = { ...prompts, [imageId]: { ...prompt, candidates } satisfies PromptState };
  }
  return objects === doc.objects && prompts === doc.prompts ? doc : { ...doc, objects, prompts };
}
