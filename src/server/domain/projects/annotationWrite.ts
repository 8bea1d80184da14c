/**
 * The heavy half of an annotation write, free of the database so that it can run in a worker
 * thread (exports/projectWorker.ts) when the body is large: parse the body, hold it to the limits
 * (before the schema looks at every vertex), validate it, check it against the image and the
 * project's classes, stamp who changed what, find the reviews it would decide, and serialise the
 * result for storage.
 */
import { WriteAnnotationsRequest, type AnnotationObject } from '../../../contract/projects';
import { parseBody } from '../../http/validation';
import { DomainError } from '../errors';
import { annotationSize, checkImageAnnotationSize } from './annotationLimits';
import { reviewsDecided, stampChanges } from './objectChanges';
import { revisionedBody } from './revisionedBody';

export interface AnnotationWriteInput {
  /** The request body as sent (JSON text). */
  rawBody: string;
  /** `If-Match: "<revision>"`, used when the body names no revision. */
  ifMatchRevision?: number;
  storedObjectsJson: string;
  image: { width: number; height: number };
  classIds: number[];
  writer: string;
  at: string;
  /** Whether the writer may accept or reject proposals (roles.ts); if not, `decided` names what the write would decide. */
  mayReview: boolean;
}

export interface PreparedAnnotationWrite {
  /** The revision the write was made on. */
  revision: number;
  /** The stamped objects as stored (JSON text). */
  objectsJson: string;
  vertices: number;
  /** Objects whose review the write would decide though the writer may not review (empty when they may). */
  decided: string[];
}

export function prepareAnnotationWrite(input: AnnotationWriteInput): PreparedAnnotationWrite {
  const body = revisionedBody(input.rawBody, input.ifMatchRevision);
  const size = annotationSize(typeof body === 'object' && body !== null ? (body as Record<string, unknown>).objects : undefined);
  checkImageAnnotationSize(size);
  const { revision, objects } = parseBody(WriteAnnotationsRequest, body);
  checkObjects(objects, input.image, input.classIds);
  const stored = JSON.parse(input.storedObjectsJson) as AnnotationObject[];
  const stamped = stampChanges(stored, objects, input.writer, input.at);
  const decided = input.mayReview ? [] : reviewsDecided(stored, stamped);
  return { revision, objectsJson: JSON.stringify(stamped), vertices: size.vertices, decided };
}

/** Objects must name classes of the project and masks must cover the image they are on. */
function checkObjects(objects: readonly AnnotationObject[], image: { width: number; height: number }, classIds: readonly number[]): void {
  const known = new Set(classIds);
  const errors: { path: string; message: string }[] = [];
  const seen = new Set<string>();
  objects.forEach((object, i) => {
    if (seen.has(object.id)) errors.push({ path: `objects.${i}.id`, message: `object id ${object.id} appears twice` });
    seen.add(object.id);
    if (object.classId !== null && !known.has(object.classId)) errors.push({ path: `objects.${i}.classId`, message: `class ${object.classId} is not a class of this project` });
    if (object.mask) {
      const { width, height, counts } = object.mask;
      if (width !== image.width || height !== image.height) errors.push({ path: `objects.${i}.mask`, message: `the mask is ${width}×${height}, the image ${image.width}×${image.height}` });
      else if (counts.reduce((a, b) => a + b, 0) !== width * height) errors.push({ path: `objects.${i}.mask.counts`, message: 'the runs do not add up to width × height' });
    }
  });
  if (errors.length) throw new DomainError('validation-failed', errors.map((e) => `${e.path}: ${e.message}`).join('; '), { errors });
}
