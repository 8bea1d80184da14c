import { bridgeHoles } from '../geometry/polygon';
import type { ImageEntry, SegObject } from '../state/model';
import { categoryIdOf, type DatasetCategory } from './categories';
import { textEntry, writeZip, type ZipEntry } from './zip';

const clamp01 = (n: number) => Math.min(1, Math.max(0, n));

export const baseName = (name: string) => name.replace(/\.[^.]+$/, '') || 'image';

/** YOLO class index of a category: its class id − 1, so the index is as stable as the id. */
export const yoloIndexOf = (categoryId: number) => categoryId - 1;

/**
 * Ultralytics YOLO segmentation labels: one line per polygon, `class x1 y1 x2 y2 ...` with
 * coordinates normalised to [0, 1].
 */
export function toYoloSeg(image: ImageEntry, objects: readonly SegObject[], categories: readonly DatasetCategory[]): string {
  const lines: string[] = [];
  for (const object of objects) {
    const classIndex = yoloIndexOf(categoryIdOf(categories, object));
    for (const polygon of object.polygons) {
      const ring = bridgeHoles(polygon);
      if (ring.length < 3) continue;
      const coords = ring.flatMap(([x, y]) => [clamp01(x / image.width).toFixed(6), clamp01(y / image.height).toFixed(6)]);
      lines.push([classIndex, ...coords].join(' '));
    }
  }
  return lines.length ? `${lines.join('\n')}\n` : '';
}

const yamlString = (s: string) => JSON.stringify(s);

/** data.yaml: names in id order; an id freed by a deleted class keeps its place as `unused_<id>`. */
export function dataYaml(categories: readonly DatasetCategory[], withImages: boolean): string {
  const count = categories.reduce((n, c) => Math.max(n, c.id), 0);
  const names = Array.from({ length: count }, (_, i) => categories.find((c) => c.id === i + 1)?.name ?? `unused_${i + 1}`);
  const lines = ['# Exported by Maskwright: class index = class id - 1', 'path: .', `train: ${withImages ? 'images' : 'labels'}`, `val: ${withImages ? 'images' : 'labels'}`, `nc: ${count}`, 'names:'];
  names.forEach((name, i) => lines.push(`  ${i}: ${yamlString(name)}`));
  return `${lines.join('\n')}\n`;
}

export function yoloZip(entries: ReadonlyArray<{ image: ImageEntry; objects: readonly SegObject[]; bytes?: Uint8Array }>, categories: readonly DatasetCategory[], withImages: boolean): Uint8Array {
  const files: ZipEntry[] = [textEntry('data.yaml', dataYaml(categories, withImages))];
  for (const entry of entries) {
    files.push(textEntry(`labels/${baseName(entry.image.name)}.txt`, toYoloSeg(entry.image, entry.objects, categories)));
    if (withImages && entry.bytes) files.push({ name: `images/${entry.image.name}`, data: entry.bytes });
  }
  return writeZip(files);
}
