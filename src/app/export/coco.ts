import { bridgeHoles, flattenRing } from '../geometry/polygon';
import { maskArea, maskBox } from '../geometry/maskPaint';
import { objectMask } from '../geometry/objectMask';
import type { ImageEntry, SegObject } from '../state/model';
import { categoryIdOf, type DatasetCategory } from './categories';

export interface CocoDataset {
  info: { description: string; version: string; date_created: string };
  images: Array<{ id: number; file_name: string; width: number; height: number }>;
  annotations: Array<{
    id: number;
    image_id: number;
    category_id: number;
    segmentation: number[][];
    area: number;
    bbox: [number, number, number, number];
    iscrowd: 0;
    score: number;
  }>;
  categories: Array<{ id: number; name: string; supercategory: string }>;
}

export interface ImageWithObjects {
  readonly image: ImageEntry;
  readonly objects: readonly SegObject[];
}

const round2 = (n: number) => Math.round(n * 100) / 100;

/**
 * COCO "instances" JSON with polygon segmentation, category ids = the session's class ids. COCO
 * polygons have no holes, so each hole is joined to its outer ring by a keyhole cut (see
 * bridgeHoles: filled even-odd, the cut covers no pixel); `area` and `bbox` are counted on the mask.
 */
export function toCoco(entries: readonly ImageWithObjects[], categories: readonly DatasetCategory[], now = new Date()): CocoDataset {
  const dataset: CocoDataset = {
    info: { description: 'Exported by Maskwright', version: '1.0', date_created: now.toISOString() },
    images: [],
    annotations: [],
    categories: categories.map((c) => ({ id: c.id, name: c.name, supercategory: 'object' })),
  };
  entries.forEach((entry, imageIndex) => {
    const imageId = imageIndex + 1;
    const { width, height } = entry.image;
    dataset.images.push({ id: imageId, file_name: entry.image.name, width, height });
    for (const object of entry.objects) {
      const rings = object.polygons.map(bridgeHoles).filter((ring) => ring.length >= 3);
      const mask = objectMask(object, width, height);
      const box = maskBox(mask);
      if (rings.length === 0 || !box) continue;
      dataset.annotations.push({
        id: dataset.annotations.length + 1,
        image_id: imageId,
        category_id: categoryIdOf(categories, object),
        segmentation: rings.map((ring) => flattenRing(ring)),
        area: maskArea(mask),
        bbox: box,
        iscrowd: 0,
        score: round2(object.confidence),
      });
    }
  });
  return dataset;
}
