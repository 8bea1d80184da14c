/**
 * What an auto-label job writes on an image (issue 38): the engine's answer as `unreviewed`
 * proposals, added to whatever people wrote meanwhile. A job only ever adds objects, so the merge
 * with concurrent human writes is per object by construction: every stored object is kept as it is,
 * a proposal already stored (the same image run again after a crash) is not added twice, and a
 * proposal that repeats an accepted object (or lies inside one) is left out, by the same mask rules
 * the studio's review queue uses (engine/proposalDedupe.ts).
 */
import type { EverythingResponse, SegmentResponse } from '../../../contract/segmentation';
import type { AnnotationObject, ProjectClass } from '../../../contract/projects';
import type { JobKind } from '../../../contract/jobs';
import type { LearnedProposals } from '../../../contract/learned';
import { maskPixelCount, rasterizePolygons } from '../../../engine/polygons';
import { dedupeProposals, type MaskedObject } from '../../../engine/proposalDedupe';
import type { PolygonWithHoles } from '../../../engine/types';

/** Masks are compared on a grid of at most this many cells a side: enough to tell one object from another. */
const COMPARISON_SIDE = 256;

export interface ImageOfJob {
  jobId: string;
  imageId: string;
  width: number;
  height: number;
}

/** The engine's answer as proposals, ids derived from the job and the prediction so a rerun names them the same. */
export function proposalsFrom(kind: JobKind, result: unknown, image: ImageOfJob, classes: readonly ProjectClass[]): AnnotationObject[] {
  const base = { holes: [] as [number, number][][] };
  const object = (i: number, masks: [number, number][][], confidence: number, extra: Partial<AnnotationObject>): AnnotationObject => ({
    id: `${image.jobId}.${i}`,
    classId: null,
    polygons: masks.filter((ring) => ring.length >= 3).map((outer) => ({ outer, ...base })),
    source: 'remote',
    confidence: Math.min(1, Math.max(0, confidence)),
    visible: true,
    review: 'unreviewed',
    ...extra,
  });
  if (kind === 'text') {
    const byName = new Map(classes.map((c) => [c.name.trim().toLowerCase(), c.id]));
    const found: AnnotationObject[] = [];
    for (const prompt of (result as SegmentResponse).prompt_results) {
      const classId = byName.get(prompt.echo.text.trim().toLowerCase()) ?? null;
      for (const prediction of prompt.predictions) {
        found.push(object(found.length, prediction.masks, prediction.confidence, { source: 'text', proposedBy: 'text-prompt', label: prompt.echo.text, classId }));
      }
    }
    return found.filter((o) => o.polygons.length > 0);
  }
  if (kind === 'learned') {
    return (result as LearnedProposals).predictions
      .map((prediction, i) => {
        const projectClass = projectClassOf(prediction.classId, classes);
        return object(i, prediction.masks, prediction.confidence, { proposedBy: 'learned', classId: projectClass?.id ?? null, label: projectClass?.name ?? prediction.classId });
      })
      .filter((o) => o.polygons.length > 0);
  }
  return (result as EverythingResponse).predictions
    .map((prediction, i) => object(i, prediction.masks, prediction.confidence, { proposedBy: 'segment-everything', ...(prediction.label ? { label: prediction.label } : {}) }))
    .filter((o) => o.polygons.length > 0);
}

/**
 * The project's class a learned class id stands for: the studio teaches with the project's class
 * ids (`"3"` for class 3); a model made elsewhere may name its classes instead, matched by name.
 */
export function projectClassOf(learnedClassId: string, classes: readonly ProjectClass[]): ProjectClass | undefined {
  const byName = learnedClassId.trim().toLowerCase();
  return classes.find((c) => String(c.id) === learnedClassId) ?? classes.find((c) => c.name.trim().toLowerCase() === byName);
}

/** What the detectors are asked for, by learned class id: the project class's name, or the learned id itself when it names no class. */
export function learnedClassNames(learnedClassIds: readonly string[], classes: readonly ProjectClass[]): Record<string, string> {
  return Object.fromEntries(learnedClassIds.map((id) => [id, projectClassOf(id, classes)?.name ?? id]));
}

interface Comparable extends MaskedObject {
  object: AnnotationObject;
}

function comparable(object: AnnotationObject, width: number, height: number): Comparable {
  const scale = Math.min(1, COMPARISON_SIDE / Math.max(width, height));
  const w = Math.max(1, Math.round(width * scale));
  const h = Math.max(1, Math.round(height * scale));
  const scaled: PolygonWithHoles[] = object.polygons.map((p) => ({
    outer: p.outer.map(([x, y]) => [x * scale, y * scale] as [number, number]),
    holes: p.holes.map((ring) => ring.map(([x, y]) => [x * scale, y * scale] as [number, number])),
  }));
  return { object, mask: rasterizePolygons(scaled, w, h), classKey: object.classId ?? object.label ?? null };
}

/**
 * The image's objects with the proposals added: stored objects untouched and first, then the
 * proposals that are neither stored already (by id) nor a repeat of an accepted object.
 */
export function addProposals(stored: readonly AnnotationObject[], proposals: readonly AnnotationObject[], size: { width: number; height: number }): { objects: AnnotationObject[]; added: AnnotationObject[] } {
  const storedIds = new Set(stored.map((o) => o.id));
  const fresh = proposals.filter((p) => !storedIds.has(p.id));
  if (fresh.length === 0) return { objects: [...stored], added: [] };
  const accepted = stored.filter((o) => o.review === 'accepted' && o.polygons.length > 0).map((o) => comparable(o, size.width, size.height));
  const candidates = fresh.map((o) => comparable(o, size.width, size.height));
  // An object too small to cover a cell of the grid cannot be compared there: it is kept as proposed.
  const { kept } = dedupeProposals(accepted, candidates.filter((c) => maskPixelCount(c.mask) > 0));
  const keptIds = new Set(kept.map((c) => c.object.id));
  const added = candidates.filter((c) => keptIds.has(c.object.id) || maskPixelCount(c.mask) === 0).map((c) => c.object);
  return { objects: [...stored, ...added], added };
}
