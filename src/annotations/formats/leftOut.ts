import type { Dataset } from './dataset';
import type { DatasetFormat } from './format';

/**
 * What a format could not write of a dataset, said in words after the export, so nothing goes
 * missing silently: image tags in a format without them (YOLO-seg, COCO, VOC...), objects in a
 * format of tags only (the tags CSV, the class folders). Empty when the file holds everything.
 */
export function leftOutByFormat(format: Pick<DatasetFormat, 'label' | 'imageTags'>, dataset: Dataset): string[] {
  const notes: string[] = [];
  const tags = dataset.images.flatMap((e) => (e.tags ?? []).map((t) => `${e.image.name}: ${t.object.label}`));
  if (!format.imageTags && tags.length) notes.push(`${format.label} cannot hold image tags: ${count(tags.length, 'tag')} left out (${tags.join(', ')})`);
  const objects = dataset.images.reduce((n, e) => n + e.objects.length, 0);
  if (format.imageTags === 'only' && objects) notes.push(`${format.label} holds image tags only: ${count(objects, 'object')} left out`);
  return notes;
}

const count = (n: number, noun: string) => `${n} ${noun}${n === 1 ? '' : 's'}`;
