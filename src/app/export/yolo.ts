import { bridgeHoles } from '../geometry/polygon';
import type { ImageEntry, SegObject } from '../state/model';
import { categoriesOf } from './labels';

const clamp01 = (n: number) => Math.min(1, Math.max(0, n));

/**
 * Ultralytics YOLO segmentation labels: one line per polygon, `class x1 y1 x2 y2 ...` with
 * coordinates normalised to [0, 1]; class ids are 0-based indexes into `classes`.
 */
export function toYoloSeg(image: ImageEntry, objects: readonly SegObject[]): { labels: string; classes: string[] } {
  const classes = categoriesOf(objects);
  const lines: string[] = [];
  for (const object of objects) {
    const classId = classes.indexOf(object.label);
    for (const polygon of object.polygons) {
      const ring = bridgeHoles(polygon);
      if (ring.length < 3) continue;
      const coords = ring.flatMap(([x, y]) => [clamp01(x / image.width).toFixed(6), clamp01(y / image.height).toFixed(6)]);
      lines.push([classId, ...coords].join(' '));
    }
  }
  return { labels: lines.length ? `${lines.join('\n')}\n` : '', classes };
}
