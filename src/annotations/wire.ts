/**
 * The annotation on the wire: the JSON a server project stores and every client writes
 * (`AnnotationObject`, which the HTTP contract takes from here), and the one mapping between it and
 * the in-memory `Annotation`. The studio uses it when it syncs, the server when it exports and when
 * its jobs propose, so an export from the server is the studio's export of the same data.
 */
import { z } from 'zod';
import { ANNOTATION_KINDS, PROPOSAL_SOURCES, REVIEW_STATES, colorForIndex, type AnnotatedImages, type Annotation, type ClassDef, type ImageEntry, type ObjectReview, type ProposalSource, type ReviewState as ReviewStateName } from './annotation';
import { hasControlCharacter } from './names';
import { maskToRuns, runsToMask } from './rle';

const Vertex = z.tuple([z.number().finite(), z.number().finite()]);
const Ring = z.array(Vertex).max(100_000);
export const ReviewState = z.enum(REVIEW_STATES as [ReviewStateName, ...ReviewStateName[]]);
/** What proposed an object (the studio's review queue). */
export const ProposedBy = z.enum(PROPOSAL_SOURCES as [ProposalSource, ...ProposalSource[]]);
export const AnnotationKind = z.enum(ANNOTATION_KINDS as ['mask', 'box', 'tag']);

export const AnnotationObject = z
  .object({
    id: z.string().min(1).max(100).describe("Stable per object: what a merge of two people's edits goes by."),
    kind: AnnotationKind.optional().describe('`mask` (the default when absent): `polygons` (and optionally `mask`); `box`: `box`, no polygons; `tag`: a class of the whole image, no geometry.'),
    classId: z.number().int().positive().nullable().describe('A class id of the project, or null (unlabelled).'),
    polygons: z.array(z.object({ outer: Ring, holes: z.array(Ring) })).max(10_000),
    box: z
      .tuple([z.number().finite(), z.number().finite(), z.number().finite().nonnegative(), z.number().finite().nonnegative()])
      .optional()
      .describe('`[x, y, width, height]` in image pixels, for `kind: "box"`.'),
    mask: z
      .object({
        width: z.number().int().positive(),
        height: z.number().int().positive(),
        counts: z.array(z.number().int().nonnegative()).describe('Uncompressed run lengths, row-major, starting with a run of 0s (COCO RLE order is column-major; this is not COCO).'),
      })
      .optional(),
    label: z.string().max(200).refine((label) => !hasControlCharacter(label), 'must not contain control characters or direction marks').optional().describe("The object's own name (a text prompt's words); a labelled object is named by its class."),
    color: z.string().regex(/^#[0-9a-fA-F]{6}$/).optional().describe("Its colour when unlabelled; a labelled object takes its class's."),
    source: z.enum(['local', 'remote', 'text']).default('local').describe('What made it: the in-browser engine, the API, or a text prompt.'),
    outlineTolerance: z.number().nonnegative().max(100).optional().describe('The tolerance (px) the polygons were traced from the mask at: a studio with the same Detail setting keeps them as they are.'),
    confidence: z.number().min(0).max(1).default(1),
    visible: z.boolean().default(true),
    review: ReviewState.default('accepted').describe('`unreviewed`: a proposal waiting for review (the studio\'s review queue); an object written without a review is its writer\'s, `accepted`. Exports carry accepted objects only.'),
    proposedBy: ProposedBy.optional().describe('What proposed it, when a machine did (kept after review).'),
    changedBy: z.string().optional().describe('Set by the server: the email of who last changed this object.'),
    changedAt: z.string().optional().describe('Set by the server.'),
  })
  .refine((o) => (o.kind === 'box') === (o.box !== undefined), { message: 'a box object (`kind: "box"`) has a `box`, and only a box object has one', path: ['box'] })
  .refine((o) => o.kind === undefined || o.kind === 'mask' || (o.polygons.length === 0 && o.mask === undefined), { message: 'box and tag objects have no polygons and no mask', path: ['polygons'] });
export type AnnotationObject = z.infer<typeof AnnotationObject>;

/** An annotation as the wire writes it: its fields in the wire's one canonical form. */
export function toWire(annotation: Annotation): AnnotationObject {
  return canonicalWire(
    {
      id: annotation.id,
      kind: annotation.kind,
      classId: annotation.classId ?? null,
      polygons: annotation.polygons.map((p) => ({ outer: p.outer.map(([x, y]) => [x, y] as [number, number]), holes: p.holes.map((h) => h.map(([x, y]) => [x, y] as [number, number])) })),
      ...(annotation.box ? { box: [...annotation.box] as [number, number, number, number] } : {}),
      ...(annotation.mask ? { mask: { width: annotation.mask.width, height: annotation.mask.height, counts: maskToRuns(annotation.mask, 'rows') } } : {}),
      outlineTolerance: annotation.outlineTolerance,
      label: annotation.label,
      color: annotation.color,
      source: annotation.source,
      confidence: annotation.confidence,
      visible: annotation.visible,
      review: annotation.review?.state ?? 'accepted',
      proposedBy: annotation.review?.source,
    },
    NO_CLASSES,
    0,
  );
}

const NO_CLASSES: readonly ClassDef[] = [];

/**
 * A wire object in the one form the studio writes it, so that two writings of the same object are
 * equal field for field and byte for byte as JSON: server-set fields and what its kind does not hold
 * left out, defaults written out, a labelled object named and coloured by its class (`classes`), an
 * unlabelled one without a colour by the palette at `index`, mask runs without empty runs.
 */
export function canonicalWire(object: AnnotationObject, classes: readonly ClassDef[], index: number): AnnotationObject {
  const kind = object.kind ?? 'mask';
  const cls = classes.find((c) => c.id === object.classId);
  return {
    id: object.id,
    ...(kind !== 'mask' ? { kind } : {}),
    classId: object.classId ?? null,
    polygons: kind === 'mask' ? object.polygons : [],
    ...(kind === 'box' && object.box ? { box: object.box } : {}),
    ...(kind === 'mask' && object.mask ? { mask: { width: object.mask.width, height: object.mask.height, counts: canonicalRuns(object.mask.counts) } } : {}),
    ...(kind === 'mask' && object.outlineTolerance !== undefined ? { outlineTolerance: object.outlineTolerance } : {}),
    label: (cls?.name ?? object.label ?? 'object').slice(0, 200),
    color: cls?.color ?? object.color ?? colorForIndex(index),
    source: object.source ?? 'local',
    confidence: Math.min(1, Math.max(0, object.confidence ?? 1)),
    visible: object.visible ?? true,
    review: object.review ?? 'accepted',
    ...(object.proposedBy ? { proposedBy: object.proposedBy } : {}),
  };
}

/** Stored objects as the studio would write them back: what its own writes are compared against. */
export const canonicalObjects = (objects: readonly AnnotationObject[], classes: readonly ClassDef[]) => objects.map((o, i) => canonicalWire(o, classes, i));

/**
 * Run lengths as `maskToRuns` gives them: the first run (of 0s) kept even when empty, no other empty
 * run, so runs that describe the same pixels are the same runs.
 */
export function canonicalRuns(counts: readonly number[]): number[] {
  const runs: number[] = [];
  counts.forEach((run, i) => {
    if (run === 0 && i > 0) return;
    // A run of the same value as the last one kept (an empty run between them was skipped) joins it.
    if (runs.length && (runs.length - 1) % 2 === i % 2) runs[runs.length - 1] += run;
    else runs.push(run);
  });
  return runs;
}

/**
 * A stored object in memory. `index` picks the colour of an unlabelled object (the palette by
 * position); a labelled one takes its class's colour and name.
 */
export function fromWire(object: AnnotationObject, classes: readonly ClassDef[], index: number): Annotation {
  const cls = classes.find((c) => c.id === object.classId);
  return {
    id: object.id,
    ...(object.kind && object.kind !== 'mask' ? { kind: object.kind } : {}),
    label: cls?.name ?? object.label ?? 'object',
    classId: object.classId,
    confidence: object.confidence,
    color: cls?.color ?? object.color ?? colorForIndex(index),
    visible: object.visible,
    polygons: object.polygons,
    ...(object.box ? { box: object.box } : {}),
    ...(object.mask ? { mask: runsToMask(object.mask.counts, object.mask.height, object.mask.width, 'rows') } : {}),
    ...(object.outlineTolerance !== undefined ? { outlineTolerance: object.outlineTolerance } : {}),
    source: object.source,
    ...reviewFromWire(object),
  };
}

function reviewFromWire(object: AnnotationObject): { review?: ObjectReview } {
  if (object.review === 'accepted' && !object.proposedBy) return {};
  return { review: { state: object.review, ...(object.proposedBy ? { source: object.proposedBy } : {}) } };
}

/** A stored project's images, classes and objects, as the wire holds them. */
export interface WireDataset {
  readonly classes: readonly ClassDef[];
  readonly images: ReadonlyArray<{ readonly image: ImageEntry; readonly objects: readonly AnnotationObject[] }>;
}

/** A stored dataset in memory, under the image ids `imageId` gives (the server's by default). */
export function fromWireDataset({ classes, images }: WireDataset, imageId: (image: ImageEntry) => string = (image) => image.id): AnnotatedImages {
  const entries = images.map(({ image }) => ({ id: imageId(image), name: image.name, width: image.width, height: image.height }));
  return {
    images: entries,
    objects: Object.fromEntries(images.map(({ objects }, i) => [entries[i].id, objects.map((o, j) => fromWire(o, classes, j))])),
    classes: classes.map(({ id, name, color }) => ({ id, name, color })),
  };
}
