/**
 * A learned "raccoon" over three-number appearance descriptors, for tests of what is done with the
 * classifier's answers (ranking, proposing, following) rather than of the descriptors themselves.
 */
import type { RegionDescriptor } from '../../src/engine/learn/descriptors';
import { LearnedClasses } from '../../src/engine/learn/learnedClasses';

export const RACCOON = [1, 0, 1];
export const GROUND = [0, 1, 0];

/** A descriptor at `centre`, moved by `shift` along its first number. */
export const toy = (centre: readonly number[], shift = 0): RegionDescriptor => ({ sam: [], detectors: [], backbone: [], appearance: centre.map((v, i) => v + (i === 0 ? shift : 0)) });

/** A model confident of raccoons near RACCOON and of background near GROUND. */
export function toyRaccoonModel(): LearnedClasses {
  const model = new LearnedClasses({ kinds: ['appearance'], l2: 1e-3 });
  for (let round = 0; round < 8; round++) {
    model.learnAll([
      ...[-0.1, 0, 0.1].map((s) => ({ descriptor: toy(RACCOON, s), classId: 'raccoon' })),
      ...[-0.1, 0, 0.1, 0.2].map((s) => ({ descriptor: toy(GROUND, s), classId: null })),
    ]);
  }
  return model;
}
