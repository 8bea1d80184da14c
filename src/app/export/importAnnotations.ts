import { maskOutline } from '../../engine/polygons';
import type { BinaryMask, Ring, Vertex } from '../../engine/types';
import { maskArea } from '../geometry/maskPaint';
import { ensureClassNamed } from '../state/classOps';
import { colorForIndex, type SegObject, type StudioDocument } from '../state/model';
import type { Outline } from '../state/outlineOps';
import { fillPolygons } from './rasterize';
import { baseName } from './yolo';

/**
 * Annotations read from a dataset file (COCO JSON, YOLO labels), before they meet the session:
 * matched to open images by file name, their classes created by name when missing.
 */
export interface ImportedAnnotation {
  /** The image's file name as the dataset names it (YOLO: the label file's base name). */
  readonly fileName: string;
  readonly className: string;
  /** Rings in image pixels, filled even-odd together (keyhole cuts and holes come out right). */
  readonly rings?: readonly Ring[];
  /** A ready mask (COCO RLE). */
  readonly mask?: BinaryMask;
  /** YOLO rings are normalised: they are scaled when the image is known. */
  readonly normalised?: boolean;
  readonly score?: number;
}

export interface ImportResult {
  readonly doc: StudioDocument;
  readonly added: number;
  /** What could not be placed, with the reason, so nothing is dropped silently. */
  readonly unmatched: readonly string[];
}

const matchKey = (name: string) => baseName(name.split(/[\\/]/).pop() ?? name).toLowerCase();

export function importAnnotations(doc: StudioDocument, annotations: readonly ImportedAnnotation[], newId: () => string, outline: Outline): ImportResult {
  let next = doc;
  let added = 0;
  const unmatched = new Map<string, number>();
  const note = (reason: string) => unmatched.set(reason, (unmatched.get(reason) ?? 0) + 1);
  const objects: Record<string, SegObject[]> = {};
  for (const a of annotations) {
    const image = doc.images.find((i) => matchKey(i.name) === matchKey(a.fileName));
    if (!image) {
      note(`${a.fileName}: no open image of that name`);
      continue;
    }
    let mask = a.mask;
    if (!mask && a.rings) {
      const scale = (v: Vertex): Vertex => (a.normalised ? [v[0] * image.width, v[1] * image.height] : v);
      const data = new Uint8Array(image.width * image.height);
      fillPolygons(data, image.width, image.height, [{ outer: [], holes: a.rings.map((r) => r.map(scale)) }], 1);
      mask = { width: image.width, height: image.height, data };
    }
    const area = mask && mask.width === image.width && mask.height === image.height ? maskArea(mask) : 0;
    if (!mask || area === 0) {
      note(`${a.fileName}: empty or wrong-sized shape`);
      continue;
    }
    let classId: number;
    ({ doc: next, classId } = ensureClassNamed(next, a.className));
    const list = (objects[image.id] ??= [...(doc.objects[image.id] ?? [])]);
    list.push({
      id: newId(),
      label: `${a.className} ${list.length + 1}`,
      classId,
      confidence: a.score ?? 1,
      color: colorForIndex(list.length),
      visible: true,
      polygons: maskOutline(mask, { ...outline, area }),
      mask,
      outlineTolerance: outline.tolerance,
      source: 'local',
    });
    added++;
  }
  const unmatchedList = [...unmatched].map(([reason, n]) => `${reason} (${n} annotation${n === 1 ? '' : 's'})`);
  return { doc: added ? { ...next, objects: { ...next.objects, ...objects } } : next, added, unmatched: unmatchedList };
}
