import type { BinaryMask, PolygonWithHoles, Ring, Vertex } from '../../engine/types';
import type { LearnedClassesState } from '../../engine/learn/learnedClasses';
import type { BoxGeometry, ObjectReview } from '../annotation';
import { CONTROL_CHARACTERS } from '../names';

/**
 * A dataset file read into plain data, before it meets the session (importAnnotations.ts): what
 * every format reader returns. Nothing is dropped silently: what a reader cannot hold is a problem.
 */
export interface ImportedCategory {
  /** The file's own id of the class (COCO category_id, YOLO index + 1, VOC palette index...). */
  readonly id?: number;
  readonly name: string;
  readonly color?: string;
}

export interface ImportedAnnotation {
  /** The image's file name as the dataset names it (YOLO: the label file's base name). */
  readonly fileName: string;
  readonly className: string;
  /** A class of the whole image (an image tag): no shape. */
  readonly tag?: boolean;
  /** Rings in image pixels, filled even-odd together (keyhole cuts and holes come out right). */
  readonly rings?: readonly Ring[];
  /** Parts with their holes (formats that keep holes apart). */
  readonly polygons?: readonly PolygonWithHoles[];
  /** A ready mask (COCO RLE, PNG masks). */
  readonly mask?: BinaryMask;
  /** A box, `[x, y, width, height]`: the annotation is a box, not a mask (detection datasets). */
  readonly box?: BoxGeometry;
  /** YOLO rings and boxes are normalised: they are scaled when the image is known. */
  readonly normalised?: boolean;
  readonly score?: number;
  /** What the file keeps of the object beyond its shape (formats that can hold it). */
  readonly label?: string;
  readonly color?: string;
  readonly visible?: boolean;
  /** Review state and what proposed it (COCO attributes, our JSON); absent: accepted. */
  readonly review?: ObjectReview;
}

export interface ImportedImage {
  readonly name: string;
  readonly width?: number;
  readonly height?: number;
}

export interface ImportedDataset {
  /** Which format read it. */
  readonly format: string;
  readonly images: readonly ImportedImage[];
  /** Every class the file declares, used or not, with its id in the file. */
  readonly categories: readonly ImportedCategory[];
  readonly annotations: readonly ImportedAnnotation[];
  readonly problems: readonly string[];
  /** The learned model that came with the dataset (learnedModelFile.ts), for the studio to restore. */
  readonly learnedModel?: LearnedClassesState;
}

/** A file the user picked, or an entry of a zip they picked. */
export interface InputFile {
  readonly name: string;
  readonly bytes: Uint8Array;
}

const decoder = new TextDecoder();
export const textOf = (file: InputFile) => decoder.decode(file.bytes);

/** JSON of a file, or undefined when it is not JSON. */
export function jsonOf(file: InputFile): unknown {
  try {
    return JSON.parse(textOf(file));
  } catch {
    return undefined;
  }
}

/**
 * The last path segment of a name (forward or back slashes), without control characters (a NUL ends a
 * name in C and in many unzip tools; U+202E makes `gpj.exe` show as `exe.jpg`; names.ts lists them): what every
 * writer puts in a zip entry, `file_name` or `imagePath`, so no name from anywhere can climb out of
 * its folder (`../../x.png` is `x.png`). Readers use it too, so names still match on import.
 */
export function fileNameOf(path: string): string {
  const name = (path.split(/[\\/]/).pop() ?? path).replace(CONTROL_CHARACTERS, '');
  return name === '' || name === '.' || name === '..' ? 'image' : name;
}
export const baseName = (name: string) => fileNameOf(name).replace(/\.[^.]+$/, '') || 'image';

/** Several files of one format read as one dataset. */
export function mergeImported(format: string, parts: readonly ImportedDataset[]): ImportedDataset {
  return {
    format,
    images: parts.flatMap((r) => r.images),
    categories: parts.flatMap((r) => r.categories),
    annotations: parts.flatMap((r) => r.annotations),
    problems: parts.flatMap((r) => r.problems),
    ...(parts.find((r) => r.learnedModel) ? { learnedModel: parts.find((r) => r.learnedModel)!.learnedModel } : {}),
  };
}

/** [x1, y1, x2, y2, ...] as a ring. */
export function pairsToRing(flat: readonly number[]): Ring {
  const ring: Ring = [];
  for (let i = 0; i + 1 < flat.length; i += 2) ring.push([flat[i], flat[i + 1]] as Vertex);
  return ring;
}

/** The JSON files among `files` whose content `is` recognises, parsed once. */
export function jsonFilesWhere<T>(files: readonly InputFile[], is: (json: unknown) => json is T): Array<{ file: InputFile; json: T }> {
  const out: Array<{ file: InputFile; json: T }> = [];
  for (const file of files) {
    if (!/\.json$/i.test(file.name)) continue;
    const json = jsonOf(file);
    if (is(json)) out.push({ file, json });
  }
  return out;
}
