/**
 * `--naming-probe` of the learn eval: how often each candidate head names the right class of a proposal
 * that matches an instance (IoU ≥ 0.5), on every photo after the seed ones, before it learns that photo.
 * The heads are taught exactly the lessons the product's model is taught, so one replay compares them
 * on the same proposals and the same sessions; only the product's model decides what is shown.
 *
 * Heads: today's logistic model (its top learned class); the same logistic with a 10× stronger L2 prior;
 * class prototypes (nearest class mean, cosine) and a 5-nearest-example vote (prototypeHead.ts); the
 * logistic and the prototypes together (the geometric mean of their class posteriors); and, for
 * reference, the detector's own label where the proposal has one.
 */
import type { DescriptorKind, RegionDescriptor } from '../../src/engine/learn/descriptors';
import { featureVector } from '../../src/engine/learn/descriptors';
import { LearnedClasses } from '../../src/engine/learn/learnedClasses';
import { prototypeHeadFor, type LabelledVector, type PrototypeHead } from '../../src/engine/learn/prototypeHead';
import type { CachedPhoto } from './learnCache';
import { MATCH_IOU } from './learnReplay';

export const PROBED_HEADS = ['logistic', 'logisticStrongPrior', 'prototypes', 'nearest5', 'logisticTimesPrototypes', 'detectorLabel'] as const;
export type ProbedHead = (typeof PROBED_HEADS)[number];

export interface NamingCounts {
  /** Proposals matching an instance, on the photos after the seed ones. */
  matched: number;
  /** Of those, named right by each head (detectorLabel: of those with a label, in `labelled`). */
  right: Record<ProbedHead, number>;
  labelled: number;
}

/** Background examples kept, as LearnedClasses keeps them by default. */
const MAX_BACKGROUND = 3000;

export function namingProbe(kinds: readonly DescriptorKind[], classOf: (categoryId: number) => string) {
  const strongPrior = new LearnedClasses({ kinds, l2: 1, head: 'logistic' });
  const classes: string[] = [''];
  let examples: LabelledVector[] = [];
  let head: PrototypeHead | undefined;
  const counts: NamingCounts = { matched: 0, labelled: 0, right: Object.fromEntries(PROBED_HEADS.map((h) => [h, 0])) as Record<ProbedHead, number> };
  const indexOf = (classId: string | null) => {
    if (classId === null) return 0;
    const c = classes.indexOf(classId);
    return c >= 0 ? c : classes.push(classId) - 1;
  };

  const name = (model: LearnedClasses, descriptor: RegionDescriptor): Record<Exclude<ProbedHead, 'detectorLabel'>, string | undefined> => {
    const logistic = model.classify(descriptor);
    const x = featureVector(descriptor, kinds);
    const prototypes = head?.classProbabilities(x);
    let together: string | undefined;
    if (prototypes && logistic.length) {
      const objectness = logistic.reduce((s, p) => s + p.raw, 0);
      let best = -Infinity;
      for (const p of logistic) {
        const score = Math.sqrt((p.raw / objectness) * (prototypes[classes.indexOf(p.classId)] ?? 0));
        if (score > best) [best, together] = [score, p.classId];
      }
    }
    const top = (probabilities: Float64Array | undefined) => {
      if (!probabilities) return undefined;
      let best = 0;
      for (let c = 1; c < probabilities.length; c++) if (probabilities[c] > probabilities[best]) best = c;
      return best > 0 ? classes[best] : undefined;
    };
    return {
      logistic: logistic[0]?.classId,
      logisticStrongPrior: strongPrior.classify(descriptor)[0]?.classId,
      prototypes: top(prototypes),
      nearest5: top(head?.nearestProbabilities(x)),
      logisticTimesPrototypes: together,
    };
  };

  return {
    counts,
    onLessons(photo: CachedPhoto, seed: boolean, lessons: readonly { descriptor: RegionDescriptor; classId: string | null }[], model: LearnedClasses): void {
      if (!seed) {
        for (const p of photo.proposals) {
          let match = -1;
          let bestOverlap = MATCH_IOU;
          photo.instances.forEach((g, k) => {
            if (p.overlaps[k] >= bestOverlap) [match, bestOverlap] = [k, p.overlaps[k]];
          });
          if (match < 0 || photo.instances[match].crowd) continue;
          const truth = classOf(photo.instances[match].categoryId);
          counts.matched++;
          const named = name(model, p.descriptor);
          for (const [h, classId] of Object.entries(named)) if (classId === truth) counts.right[h as ProbedHead]++;
          if (p.label !== undefined) {
            counts.labelled++;
            if (p.label === truth) counts.right.detectorLabel++;
          }
        }
      }
      strongPrior.learnAll(lessons);
      for (const l of lessons) examples.push({ x: featureVector(l.descriptor, kinds), c: indexOf(l.classId) });
      const background = examples.filter((e) => e.c === 0).length;
      if (background > MAX_BACKGROUND) {
        let drop = background - MAX_BACKGROUND;
        examples = examples.filter((e) => e.c !== 0 || drop-- <= 0);
      }
      if (lessons.length) {
        head ??= prototypeHeadFor(lessons[0].descriptor, kinds);
        head.fit(examples, classes.length);
      }
    },
  };
}
