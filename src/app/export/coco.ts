import { boundsOf, bridgeHoles, flattenRing, polygonArea } from '../geometry/polygon';
import type { ImageEntry, SegObject } from '../state/model';
import { categoriesOf } from './labels';

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
 * COCO "instances" JSON with polygon segmentation. COCO polygons have no holes, so each hole is
 * joined to its outer ring by a keyhole cut (see bridgeHoles); `area` is the true area without holes.
 */
export function toCoco(entries: readonly ImageWithObjects[], now = new Date()): CocoDataset {
  const categories = categoriesOf(entries.flatMap((e) => e.objects));
  const dataset: CocoDataset = {
    info: { description: 'Exported by Maskwright', version: '1.0', date_created: now.toISOString() },
    images: [],
    annotations: [],
    categories: categories.map((name, i) => ({ id: i + 1, name, supercategory: 'object' })),
  };
  entries.forEach((entry, imageIndex) => {
    const imageId = imageIndex + 1;
    dataset.images.push({ id: imageId, file_name: entry.image.name, width: entry.image.width, height: entry.image.height });
    for (const object of entry.objects) {
      const rings = object.polygons.map(bridgeHoles).filter((ring) => ring.length >= 3);
      const bounds = boundsOf(object.polygons);
      if (rings.length === 0 || !bounds) continue;
      dataset.annotations.push({
        id: dataset.annotations.length + 1,
        image_id: imageId,
        category_id: categories.indexOf(object.label) + 1,
        segmentation: rings.map((ring) => flattenRing(ring)),
        area: round2(object.polygons.reduce((sum, p) => sum + polygonArea(p), 0)),
        bbox: [round2(bounds.left), round2(bounds.top), round2(bounds.width), round2(bounds.height)],
        iscrowd: 0,
        score: round2(object.confidence),
      });
    }
  });
  return dataset;
}
