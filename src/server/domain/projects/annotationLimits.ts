/**
 * The size of an image's annotations, counted on the request's parsed JSON before the schema is
 * checked (a body past the limits costs a loop over its arrays, not a validation of every vertex),
 * and the refusal of what is past ANNOTATION_LIMITS (contract/projects.ts).
 */
import { ANNOTATION_LIMITS } from '../../../contract/projects';
import { DomainError } from '../errors';

export interface AnnotationSize {
  objects: number;
  vertices: number;
  maskRuns: number;
}

const lengthOf = (value: unknown) => (Array.isArray(value) ? value.length : 0);

/** Counts what `objects` holds, whatever its shape (anything not an array counts nothing: the schema refuses it after). */
export function annotationSize(objects: unknown): AnnotationSize {
  const size: AnnotationSize = { objects: lengthOf(objects), vertices: 0, maskRuns: 0 };
  if (!Array.isArray(objects)) return size;
  for (const object of objects) {
    if (typeof object !== 'object' || object === null) continue;
    const { polygons, mask } = object as { polygons?: unknown; mask?: { counts?: unknown } };
    if (Array.isArray(polygons)) {
      for (const polygon of polygons) {
        if (typeof polygon !== 'object' || polygon === null) continue;
        const { outer, holes } = polygon as { outer?: unknown; holes?: unknown };
        size.vertices += lengthOf(outer);
        if (Array.isArray(holes)) for (const hole of holes) size.vertices += lengthOf(hole);
      }
    }
    if (mask && typeof mask === 'object') size.maskRuns += lengthOf(mask.counts);
  }
  return size;
}

function tooLarge(rule: string, value: number, limit: number, what: string): DomainError {
  return new DomainError('annotations-too-large', `${what}: ${value.toLocaleString('en-US')}, at most ${limit.toLocaleString('en-US')}`, { members: { rule, value, limit } });
}

/** 413 for an image's annotations past the per-image limits. */
export function checkImageAnnotationSize(size: AnnotationSize): void {
  const limits = ANNOTATION_LIMITS;
  if (size.objects > limits.objectsPerImage) throw tooLarge('objects-per-image', size.objects, limits.objectsPerImage, 'objects on one image');
  if (size.vertices > limits.verticesPerImage) throw tooLarge('vertices-per-image', size.vertices, limits.verticesPerImage, 'polygon vertices on one image');
  if (size.maskRuns > limits.maskRunsPerImage) throw tooLarge('mask-runs-per-image', size.maskRuns, limits.maskRunsPerImage, 'mask run lengths on one image');
}

/** 413 for a project whose images together would hold more vertices than the per-project limit. */
export function checkProjectVertices(vertices: number): void {
  const limit = ANNOTATION_LIMITS.verticesPerProject;
  if (vertices > limit) throw tooLarge('vertices-per-project', vertices, limit, 'polygon vertices in the project');
}
