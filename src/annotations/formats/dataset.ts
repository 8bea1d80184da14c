import type { LearnedClassesState } from '../../engine/learn/learnedClasses';
import { isBox, isTag, type AnnotatedImages, type Annotation, type ImageEntry } from '../annotation';
import { isAccepted, isShown } from '../review';
import { categoryIdOf, classIdsNotKeptNotes, datasetCategories, unusedClassNotes, type DatasetCategory } from './categories';
import { boxGeometry, objectGeometry, type ObjectGeometry } from '../objectGeometry';

/**
 * What every dataset writer takes: plain data, no DOM, so the server can write the same files
 * (issue 28). Each object carries its one exported geometry (objectGeometry.ts) and its category.
 */
export interface DatasetObject {
  readonly object: Annotation;
  /** What the object is: a mask (its outline) or a box (its rectangle). Both have a `geometry.bbox`: what a detection format writes. */
  readonly kind: 'mask' | 'box';
  readonly categoryId: number;
  readonly geometry: ObjectGeometry;
}

/** A class given to the whole image (an annotation of kind `tag`): it has no geometry. */
export interface DatasetTag {
  readonly object: Annotation;
  readonly categoryId: number;
}

export interface DatasetImage {
  readonly image: ImageEntry;
  readonly objects: readonly DatasetObject[];
  /** The image's tags; absent: none. Kept apart from `objects`, which all have a shape. */
  readonly tags?: readonly DatasetTag[];
  /** The photo's file bytes, for formats that can carry them. */
  readonly bytes?: Uint8Array;
}

export interface Dataset {
  readonly images: readonly DatasetImage[];
  readonly categories: readonly DatasetCategory[];
  /** Objects left out because no pixel of them lies inside their image, by image name. */
  readonly outsideImage: readonly string[];
  /** The learned classes taught on these images (vectors and weights, never photos): written beside the annotations (learnedModelFile.ts). */
  readonly learnedModel?: LearnedClassesState;
}

export interface ExportOptions {
  /** Hidden objects are left out unless the user ticks "Include hidden objects". */
  readonly includeHidden: boolean;
  /** Proposals not yet reviewed are left out unless the user ticks "Include proposals"; rejected ones never go. */
  readonly includeProposals?: boolean;
}

/** Whether an object goes into a file written with these options. */
export function isExported(object: Annotation, options: ExportOptions): boolean {
  return (options.includeHidden || object.visible) && (options.includeProposals ? isShown(object) : isAccepted(object));
}

/** Every image of the session with the objects to export, and the categories they use. */
export function sessionDataset(doc: AnnotatedImages, options: ExportOptions): Dataset {
  const chosen = doc.images.map((image) => ({ image, objects: (doc.objects[image.id] ?? []).filter((o) => isExported(o, options)) }));
  const categories = datasetCategories(doc.classes, chosen.flatMap((e) => e.objects));
  const outsideImage: string[] = [];
  const images = chosen.map(({ image, objects }) => ({
    image,
    tags: objects.filter(isTag).map((object) => ({ object, categoryId: categoryIdOf(categories, object) })),
    objects: objects.filter((o) => !isTag(o)).flatMap((object): DatasetObject[] => {
      const kind = isBox(object) ? 'box' : 'mask';
      const geometry = isBox(object) ? boxGeometry(object.box, image.width, image.height) : objectGeometry(object, image.width, image.height);
      if (!geometry) {
        outsideImage.push(`${image.name}: ${object.label}`);
        return [];
      }
      return [{ object, kind, categoryId: categoryIdOf(categories, object), geometry }];
    }),
  }));
  return { images, categories, outsideImage };
}

/** The same dataset with each image's file bytes attached (formats that carry the photos). */
export function withImageBytes(dataset: Dataset, bytesOf: (image: ImageEntry) => Uint8Array | undefined): Dataset {
  return { ...dataset, images: dataset.images.map((entry) => ({ ...entry, bytes: bytesOf(entry.image) })) };
}

/** The names of the classes the dataset's objects and tags use: what a format that names classes only in its rows writes. */
export function classNamesInUse(dataset: Dataset): string[] {
  const ids = new Set(dataset.images.flatMap((entry) => [...entry.objects, ...(entry.tags ?? [])].map((item) => item.categoryId)));
  return dataset.categories.filter((c) => ids.has(c.id)).map((c) => c.name);
}

/** The notes of a format that names classes only in its rows: no ids, and no class that no row uses. */
export function namesOnlyClassNotes(formatLabel: string, dataset: Dataset): string[] {
  return [...classIdsNotKeptNotes(formatLabel, dataset.categories), ...unusedClassNotes(formatLabel, dataset.categories, classNamesInUse(dataset))];
}
