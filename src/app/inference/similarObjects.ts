import { objectMask } from '../geometry/objectMask';
import type { ImageEntry, Annotation } from '../../annotations/annotation';
import type { FindSimilarResponse } from '../../engine/service/api';
import type { EngineSession } from './engineSession';
import { addWithoutDuplicates } from './objectDedupe';
import { proposedBy } from '../../annotations/review';

/**
 * "Find similar" on an accepted object: the engine worker looks for other instances by its exemplar
 * rule (src/engine/text/exemplar.ts): from the detections of the object's class where a detector
 * knows it, from SAM's image features otherwise, so it works for things no detector knows.
 * Local mode only: it needs the image embedding, which only the browser engine keeps.
 */

export interface SimilarOutcome {
  /** Objects added. */
  readonly added: number;
  /** Candidates turned down because they do not look like the example. */
  readonly rejected: number;
  /** Found again: already on the image (mask IoU ≥ 0.9), not added twice. */
  readonly duplicates: number;
}

/** What find similar found, as proposals of the class `label` / `classId`, drawn at `tolerance`. */
export function similarProposals(found: FindSimilarResponse['instances'], label: string, classId: number | null, tolerance: number): Omit<Annotation, 'color' | 'id'>[] {
  return found.map((f) => ({
    label,
    classId,
    confidence: Math.min(1, Math.max(0, f.confidence)),
    visible: true,
    polygons: f.polygons,
    mask: f.mask,
    outlineTolerance: tolerance,
    source: 'local' as const,
    review: proposedBy('find-similar'),
  }));
}

/** Adds what was found as new objects, labelled like the source, in one undo step. */
export async function findSimilarObjects(session: EngineSession, image: ImageEntry, object: Annotation, tolerance: number): Promise<SimilarOutcome> {
  const { instances: found, rejected = 0 } = await session.findSimilar(image.id, [objectMask(object, image.width, image.height)], { tolerance });
  const { added, duplicates } = addWithoutDuplicates(image, similarProposals(found, object.label, object.classId ?? null, tolerance), 'find similar');
  return { added, rejected, duplicates };
}
