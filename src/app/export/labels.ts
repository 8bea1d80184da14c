import type { SegObject } from '../state/model';

/** Category ids in order of first appearance, 1-based like COCO. */
export function categoriesOf(objects: readonly SegObject[]): string[] {
  const names: string[] = [];
  for (const object of objects) if (!names.includes(object.label)) names.push(object.label);
  return names;
}
