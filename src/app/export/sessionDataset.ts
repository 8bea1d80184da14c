import type { ImageEntry, SegObject, StudioDocument } from '../state/model';
import { datasetCategories, type DatasetCategory } from './categories';

export interface ExportOptions {
  /** Hidden objects are exported unless the user unticks "Include hidden objects". */
  readonly includeHidden: boolean;
}

export interface SessionDataset {
  readonly entries: ReadonlyArray<{ image: ImageEntry; objects: SegObject[] }>;
  readonly categories: readonly DatasetCategory[];
}

/** Every image of the session with the objects to export, and the categories they use. */
export function sessionDataset(doc: StudioDocument, options: ExportOptions): SessionDataset {
  const entries = doc.images.map((image) => ({
    image,
    objects: (doc.objects[image.id] ?? []).filter((o) => options.includeHidden || o.visible),
  }));
  return { entries, categories: datasetCategories(doc.classes, entries.flatMap((e) => e.objects)) };
}
