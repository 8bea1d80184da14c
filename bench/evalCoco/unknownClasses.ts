/**
 * Classes no detector knows, played on COCO photos (issue 37's "crowded small classes no detector
 * knows"): the person's labels of some COCO classes stay, while everything the shipped detectors say
 * of those classes is taken out of the cached session before it is replayed. What a user's own class
 * (their products, parts, cells) gets from the detectors is then what these classes get: no word.
 *
 * Where a detector's word reaches a cached photo, and what hiding does there:
 * - a proposal prompted by a detector's box of a hidden class: dropped. The box is there only because
 *   the detector recognised the class, so keeping it, even unnamed, would still tell the tool "an
 *   object of interest is here", which a class no detector knows never gets. (`keepBoxes` keeps it
 *   unnamed instead: the lenient reading, to measure what the boxes are worth.)
 * - the `detectors` descriptor's columns of the hidden classes: zero, for proposals and for the
 *   person's own objects alike. Other columns stay: a cup that reads a bit like a bowl to the detectors
 *   is what a user's unknown class gets too.
 * - the `fit` descriptor: made from the detectors' boxes minus those of hidden classes
 *   (detectionsCache.ts withFitFromDir's `hidden`).
 * - the detector prior (proposeLearned.ts bestGuess): no proposal is named a hidden class, so it never
 *   applies to one.
 */
import { DETECTOR_CONCEPTS } from '../../src/engine/learn/descriptors';
import type { CachedPhoto } from './learnCache';
import type { CocoInstancesFile } from './everything';

/** COCO's "small": an instance under 32 × 32 pixels. */
export const SMALL_AREA = 32 * 32;

/**
 * The rule that picks the crowded small classes from the ground truth alone (never from results): the
 * median instance is small, a photo holding the class holds at least `perPhoto` of them on average, and
 * the set has at least `minInstances` of them (fewer cannot give an AP worth reading).
 */
export interface CrowdedSmallRule {
  readonly maxMedianArea: number;
  readonly perPhoto: number;
  readonly minInstances: number;
}

export const CROWDED_SMALL_RULE: CrowdedSmallRule = { maxMedianArea: SMALL_AREA, perPhoto: 3, minInstances: 20 };

/** The names of the classes the rule picks, most instances first. Crowd regions are not instances. */
export function crowdedSmallClasses(instances: Pick<CocoInstancesFile, 'categories' | 'annotations'>, rule: CrowdedSmallRule = CROWDED_SMALL_RULE): string[] {
  const areas = new Map<number, number[]>();
  const photos = new Map<number, Set<number>>();
  for (const a of instances.annotations) {
    if (a.iscrowd === 1) continue;
    (areas.get(a.category_id) ?? areas.set(a.category_id, []).get(a.category_id)!).push(a.area);
    (photos.get(a.category_id) ?? photos.set(a.category_id, new Set()).get(a.category_id)!).add(a.image_id);
  }
  return instances.categories
    .filter((c) => {
      const list = areas.get(c.id) ?? [];
      return list.length >= rule.minInstances && median(list) < rule.maxMedianArea && list.length / photos.get(c.id)!.size >= rule.perPhoto;
    })
    .sort((a, b) => areas.get(b.id)!.length - areas.get(a.id)!.length)
    .map((c) => c.name);
}

/** The cached photo as the tool would have seen it had no detector known the `hidden` classes (see the module's comment). */
export function hideFromDetectors(photo: CachedPhoto, hidden: ReadonlySet<string>, keepBoxes = false): CachedPhoto {
  const columns = DETECTOR_CONCEPTS.flatMap((concept, column) => (hidden.has(concept) ? [column] : []));
  const blind = <T extends { descriptor: CachedPhoto['proposals'][number]['descriptor'] }>(region: T): T => {
    const detectors = [...region.descriptor.detectors];
    for (const column of columns) detectors[column] = 0;
    return { ...region, descriptor: { ...region.descriptor, detectors } };
  };
  const proposals = photo.proposals.flatMap((p) => {
    if (p.label === undefined || !hidden.has(p.label)) return [blind(p)];
    if (!keepBoxes) return [];
    const { label: _label, detectorScore: _score, ...unnamed } = p;
    return [blind(unnamed)];
  });
  return { ...photo, instances: photo.instances.map(blind), proposals };
}

/** The classes named on the command line: `crowded-small` for the rule's pick, or names joined by commas, each one of the data's. */
export function unknownClassesOf(argument: string, instances: Pick<CocoInstancesFile, 'categories' | 'annotations'>): string[] {
  if (argument === 'crowded-small') return crowdedSmallClasses(instances);
  const names = argument.split(',').map((n) => n.trim()).filter((n) => n.length > 0);
  const known = new Set(instances.categories.map((c) => c.name));
  const unknown = names.filter((n) => !known.has(n));
  if (unknown.length > 0) throw new Error(`not a class of the data: ${unknown.join(', ')}`);
  return names;
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}
