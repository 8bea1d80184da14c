import { describe, expect, it } from 'vitest';
import { confidentThreshold, precisionAt } from './acceptAll';
import { DEFAULT_LEARNED_MODEL_MAX_BYTES } from '../../contract/learned';
import { APPEARANCE_LENGTH, DETECTOR_CONCEPTS, type RegionDescriptor } from './descriptors';
import { LearnedClasses, type LearnedClassesState } from './learnedClasses';
import { unpackExamples } from './packedExamples';
import { DEFAULT_SHOWN_CALIBRATION } from './shownCalibration';

/** A toy descriptor: only `appearance` carries the signal, around a class's centre. */
function toy(centre: readonly number[], jitter: () => number): RegionDescriptor {
  return { sam: [], detectors: [], appearance: centre.map((v) => v + jitter()), backbone: [] };
}

function generator(seed: number): () => number {
  let s = seed;
  return () => {
    s = (s * 1103515245 + 12345) % 2147483648;
    return (s / 2147483648 - 0.5) * 0.6;
  };
}

const CAT = [1, 0, 0, 1];
const DOG = [0, 1, 0, -1];
const BACKGROUND = [0, 0, 1, 0];

function taught(): LearnedClasses {
  const jitter = generator(7);
  // A light penalty: on four features the toy set needs no more, and the test asks for confident answers.
  const model = new LearnedClasses({ kinds: ['appearance'], l2: 1e-3 });
  for (let round = 0; round < 6; round++) {
    model.learnAll([
      ...Array.from({ length: 5 }, () => ({ descriptor: toy(CAT, jitter), classId: 'cat' })),
      ...Array.from({ length: 5 }, () => ({ descriptor: toy(DOG, jitter), classId: 'dog' })),
      ...Array.from({ length: 10 }, () => ({ descriptor: toy(BACKGROUND, jitter), classId: null })),
    ]);
  }
  return model;
}

describe('LearnedClasses', () => {
  it('learns a separable toy set: each class most probable on its own examples, background low on both', () => {
    const model = taught();
    const jitter = generator(99);
    for (let i = 0; i < 20; i++) {
      expect(model.classify(toy(CAT, jitter))[0].classId).toBe('cat');
      expect(model.classify(toy(DOG, jitter))[0].classId).toBe('dog');
      expect(model.classify(toy(CAT, jitter))[0].probability).toBeGreaterThan(0.8);
      expect(model.classify(toy(BACKGROUND, jitter))[0].probability).toBeLessThan(0.2);
    }
    expect(model.classIds).toEqual(['cat', 'dog']);
  });

  it('knows nothing before it is taught', () => {
    expect(new LearnedClasses({ kinds: ['appearance'] }).classify(toy(CAT, () => 0))).toEqual([]);
  });

  it('a rejected proposal teaches background: what was rejected is no longer proposed', () => {
    const model = taught();
    const lookalike = [1, 0, 1, 1];
    const before = model.classify(toy(lookalike, () => 0))[0].probability;
    const jitter = generator(3);
    for (let i = 0; i < 10; i++) model.reject(toy(lookalike, jitter));
    expect(model.classify(toy(lookalike, () => 0))[0].probability).toBeLessThan(before);
    expect(model.classify(toy(lookalike, () => 0))[0].probability).toBeLessThan(0.5);
  });

  it('forgets a class with its examples', () => {
    const model = taught();
    model.forget('dog');
    expect(model.classIds).toEqual(['cat']);
    expect(model.examplesOf('dog')).toBe(0);
    expect(model.classify(toy(CAT, () => 0))[0].classId).toBe('cat');
  });

  it('serialises to JSON and back with the same answers, and goes on learning the same way', () => {
    const model = taught();
    model.recordDecision({ raw: 0.9, correct: true });
    const copy = LearnedClasses.fromJSON(JSON.parse(JSON.stringify(model.toJSON())));
    const probe = toy([0.5, 0.5, 0.2, 0], () => 0);
    expect(copy.classify(probe)).toEqual(model.classify(probe));
    expect(copy.shownDecisions()).toEqual(model.shownDecisions());
    const more = [{ descriptor: toy(CAT, () => 0.1), classId: 'cat' }];
    model.learnAll(more);
    copy.learnAll(more);
    expect(copy.classify(probe)).toEqual(model.classify(probe));
  });

  it('ranks a rejected kind of part lower once taught, keeps that through JSON, and loads a model saved before the ranker', () => {
    const model = taught();
    const raccoon = { box: { x0: 0, y0: 0, x1: 100, y1: 80 }, classId: 'cat', probability: 0.9 };
    const head = { box: { x0: 10, y0: 5, x1: 40, y1: 30 }, classId: 'cat', probability: 0.7 };
    const saved = JSON.parse(JSON.stringify(model.toJSON()));
    expect(model.rankProposals([raccoon, head])[1].probability).toBeCloseTo(0.7, 6);
    for (let i = 0; i < 20; i++) {
      const [whole, part] = model.rankProposals([raccoon, head]);
      model.recordProposalOutcomes([{ relation: whole.relation, correct: true }, { relation: part.relation, correct: false }]);
    }
    expect(model.rankProposals([raccoon, head])[1].probability).toBeLessThan(0.3);
    const copy = LearnedClasses.fromJSON(JSON.parse(JSON.stringify(model.toJSON())));
    expect(copy.rankProposals([raccoon, head])).toEqual(model.rankProposals([raccoon, head]));
    delete saved.ranker;
    const old = LearnedClasses.fromJSON(saved);
    expect(old.rankProposals([raccoon, head])[1].probability).toBeCloseTo(0.7, 6);
    expect(old.classify(toy(CAT, () => 0))).toEqual(model.classify(toy(CAT, () => 0)));
  });

  it('loads a model saved before the packed examples, and answers as the model it was saved from', () => {
    const model = taught();
    const saved = JSON.parse(JSON.stringify(model.toJSON())) as LearnedClassesState;
    const before = { ...saved, examples: unpackExamples(saved.packedExamples!).map((e) => ({ x: [...e.x], c: e.c })), packedExamples: undefined };
    const old = LearnedClasses.fromJSON(JSON.parse(JSON.stringify(before)));
    const probe = toy([0.5, 0.5, 0.2, 0], () => 0);
    expect(old.classify(probe)).toEqual(model.classify(probe));
    expect(old.examplesOf('cat')).toBe(model.examplesOf('cat'));
    const more = [{ descriptor: toy(DOG, () => 0.1), classId: 'dog' }];
    model.learnAll(more);
    old.learnAll(more);
    expect(old.classify(probe)).toEqual(model.classify(probe));
  });

  it("keeps a model at full capacity (three classes and the background at their limits) well under the server's body limit", () => {
    const jitter = generator(11);
    const length = { sam: 256, detectors: DETECTOR_CONCEPTS.length, appearance: APPEARANCE_LENGTH };
    const descriptor = (centre: number): RegionDescriptor => ({
      sam: Array.from({ length: length.sam }, () => centre + jitter()),
      detectors: Array.from({ length: length.detectors }, () => Math.abs(jitter())),
      appearance: Array.from({ length: length.appearance }, () => centre + jitter()),
      backbone: [],
      fit: Array.from({ length: 3 }, () => Math.abs(jitter())),
    });
    const model = new LearnedClasses({ stepWork: 1e5 });
    const { maxBackground, maxPerClass } = model.toJSON().settings;
    const wanted = [...Array.from({ length: maxBackground }, () => null), ...['a', 'b', 'c'].flatMap((c) => Array.from({ length: maxPerClass }, () => c))];
    for (let i = 0; i < wanted.length; i += 800) model.learnAll(wanted.slice(i, i + 800).map((classId) => ({ descriptor: descriptor(classId ? 'abc'.indexOf(classId) + 1 : 0), classId })));
    expect(model.examplesOf('c')).toBe(maxPerClass);
    const bytes = JSON.stringify(model.toJSON()).length;
    expect(bytes).toBeLessThan(DEFAULT_LEARNED_MODEL_MAX_BYTES / 4);
  });

  it('takes back a lesson by its key, also after JSON, and a keyed lesson taught again replaces the old one', () => {
    const model = taught();
    model.learnAll([{ descriptor: toy(CAT, () => 0.05), classId: 'cat', key: 'object-1' }]);
    const cats = model.examplesOf('cat');
    model.learnAll([{ descriptor: toy(CAT, () => 0.05), classId: 'dog', key: 'object-1' }]);
    expect(model.examplesOf('cat')).toBe(cats - 1);
    const copy = LearnedClasses.fromJSON(JSON.parse(JSON.stringify(model.toJSON())));
    const dogs = copy.examplesOf('dog');
    expect(copy.unlearn(['object-1'])).toBe(true);
    expect(copy.examplesOf('dog')).toBe(dogs - 1);
    expect(copy.unlearn(['object-1', 'never-taught'])).toBe(false);
  });

  it('a model of fewer descriptor kinds reads descriptors that have more', () => {
    const model = taught();
    const withBackbone = { ...toy(CAT, () => 0), backbone: [0.1, 0.2, 0.3] };
    expect(model.classify(withBackbone)).toEqual(model.classify(toy(CAT, () => 0)));
  });

  it('calibrates on recorded decisions: an over-confident model is pulled down to the measured rate', () => {
    const model = taught();
    const raw = model.classify(toy(CAT, () => 0))[0].raw;
    // Half of what it was this sure of turned out wrong.
    for (let i = 0; i < 200; i++) model.recordDecision({ raw, correct: i % 2 === 0 });
    expect(model.classify(toy(CAT, () => 0))[0].probability).toBeGreaterThan(0.4);
    expect(model.classify(toy(CAT, () => 0))[0].probability).toBeLessThan(0.6);
  });

  /** One lone proposal of class 'cat' ranked at `probability`, shown and decided. */
  function decideLone(model: LearnedClasses, probability: number, correct: boolean): void {
    const [lone] = model.rankProposals([{ box: { x0: 0, y0: 0, x1: 50, y1: 50 }, classId: 'cat', probability }]);
    model.recordProposalOutcomes([{ relation: lone.relation, correct }]);
  }

  it('the shown decisions carry the probability shown now: the always-right ones rank above the rest, and "accept all" finds its default there', () => {
    const model = new LearnedClasses({ kinds: ['appearance'] });
    // Right above 0.7 always, below it half the time.
    for (let i = 0; i < 100; i++) decideLone(model, 0.75 + (i % 20) / 100, true);
    for (let i = 0; i < 100; i++) decideLone(model, 0.3 + (i % 30) / 100, i % 2 === 0);
    const decided = model.shownDecisions();
    expect(decided).toHaveLength(200);
    const threshold = confidentThreshold(decided)!;
    const letThrough = precisionAt(decided, threshold);
    expect(letThrough.precision).toBeGreaterThanOrEqual(0.95);
    // Every always-right decision is let through, and not most of the half-right ones.
    expect(letThrough.count).toBeGreaterThanOrEqual(100);
    expect(letThrough.count).toBeLessThan(150);
  });

  it('shows a probability calibrated on the decisions on shown proposals, keeps it through JSON, and loads a model saved before it', () => {
    const model = taught();
    const saved = JSON.parse(JSON.stringify(model.toJSON()));
    // Many improbable proposals ranked but not shown, honest about their chances; the few shown ones
    // over-confident: said 0.9, right half the time. The ranker's one logistic fit follows the many.
    const decide = (count: number, probability: number, rightRate: number, shown: boolean) => {
      const [lone] = model.rankProposals([{ box: { x0: 0, y0: 0, x1: 50, y1: 50 }, classId: 'cat', probability }]);
      model.recordProposalOutcomes(Array.from({ length: count }, (_, i) => ({ relation: lone.relation, correct: i % 100 < rightRate * 100, shown })));
    };
    decide(1500, 0.02, 0.02, false);
    decide(1500, 0.15, 0.15, false);
    decide(200, 0.6, 0.4, true);
    decide(200, 0.9, 0.5, true);
    const [shown] = model.rankProposals([{ box: { x0: 0, y0: 0, x1: 50, y1: 50 }, classId: 'cat', probability: 0.9 }]);
    expect(shown.probability).toBeGreaterThan(0.4);
    expect(shown.probability).toBeLessThan(0.6);
    expect(model.rankAgain(shown.relation, 0.9).probability).toBeCloseTo(shown.probability, 9);
    const copy = LearnedClasses.fromJSON(JSON.parse(JSON.stringify(model.toJSON())));
    expect(copy.rankAgain(shown.relation, 0.9).probability).toBe(model.rankAgain(shown.relation, 0.9).probability);
    delete saved.shown;
    const old = LearnedClasses.fromJSON(saved);
    expect(old.rankProposals([{ box: { x0: 0, y0: 0, x1: 50, y1: 50 }, classId: 'cat', probability: 0.9 }])[0].probability).toBeCloseTo(0.9, 6);
  });

  it('a model saved with another map of the shown probability loads with the map this engine uses, refitted on its decisions', () => {
    const model = taught();
    for (let i = 0; i < 40; i++) decideLone(model, 0.9, i % 4 !== 0);
    const saved = JSON.parse(JSON.stringify(model.toJSON())) as LearnedClassesState;
    const savedWithOld = { ...saved, shown: { ...saved.shown!, method: 'isotonic' as const } };
    const lone = [{ box: { x0: 0, y0: 0, x1: 50, y1: 50 }, classId: 'cat', probability: 0.9 }];
    expect(LearnedClasses.fromJSON(savedWithOld).toJSON().shown?.method).toBe(DEFAULT_SHOWN_CALIBRATION);
    expect(LearnedClasses.fromJSON(savedWithOld).rankProposals(lone)[0].probability).toBe(model.rankProposals(lone)[0].probability);
    // The caller's choice still wins (the learn eval's --shown-calibration).
    expect(LearnedClasses.fromJSON(saved, { shownCalibration: 'none' }).toJSON().shown?.method).toBe('none');
  });

  /**
   * A model that decided on lone proposals, saved and restored as an older engine held its ranker: the
   * relations cut to the features `keptBeforeBias` (the first ones), the bias last.
   */
  function savedByAnOlderEngine(keptBeforeBias: number): { model: LearnedClasses; restored: LearnedClasses } {
    const model = taught();
    for (let i = 0; i < 40; i++) decideLone(model, 0.9, i % 4 !== 0);
    const saved = JSON.parse(JSON.stringify(model.toJSON())) as LearnedClassesState;
    const before = (x: readonly number[]) => [...x.slice(0, keptBeforeBias), x[x.length - 1]];
    const old = { ...saved, ranker: { weights: before(saved.ranker!.weights), outcomes: saved.ranker!.outcomes.map((o) => ({ ...o, x: before(o.x) })) }, shown: { ...saved.shown!, outcomes: saved.shown!.outcomes.map((o) => ({ ...o, x: before(o.x) })) } };
    return { model, restored: LearnedClasses.fromJSON(old) };
  }

  // Six features a relation before the count features, eight before the ring, thirteen before the mask's quality; the lone proposals here have no ring and no quality.
  it.each([
    ['the count features', 5],
    ['the ring', 7],
    ["the mask's quality", 12],
  ])('loads a model saved before the ranker read %s, with its decisions, answering as it did and learning on from them', (_, keptBeforeBias) => {
    const { model, restored } = savedByAnOlderEngine(keptBeforeBias);
    const lone = [{ box: { x0: 0, y0: 0, x1: 50, y1: 50 }, classId: 'cat', probability: 0.9 }];
    expect(restored.rankProposals(lone)[0].probability).toBeCloseTo(model.rankProposals(lone)[0].probability, 9);
    expect(restored.shownDecisions()).toEqual(model.shownDecisions());
    expect(restored.toJSON().ranker!.outcomes[0].x).toHaveLength(14);
    decideLone(restored, 0.9, true);
    expect(restored.toJSON().ranker!.weights).toHaveLength(14);
  });

  it('a proposal ranked but not shown teaches the ranker, not the shown probability', () => {
    const model = new LearnedClasses({ kinds: ['appearance'] });
    const [lone] = model.rankProposals([{ box: { x0: 0, y0: 0, x1: 50, y1: 50 }, classId: 'cat', probability: 0.9 }]);
    model.recordProposalOutcomes(Array.from({ length: 50 }, () => ({ relation: lone.relation, correct: false, shown: false })));
    expect(model.toJSON().shown?.outcomes).toHaveLength(0);
    expect(model.toJSON().ranker?.outcomes).toHaveLength(50);
  });

  it('refuses a descriptor of another shape than it learned', () => {
    const model = taught();
    expect(() => model.classify({ sam: [], detectors: [], appearance: [1, 2], backbone: [] })).toThrow(/features/);
  });

  it('names classes taught by a few examples of two opposite looks each, and with one class shows what the logistic model alone shows', () => {
    // Six classes, each in two opposite looks (no weight row fires on both: the logistic model must
    // give one up), three examples each, and six background examples for every positive.
    const random = generator(11);
    const looks = Array.from({ length: 6 }, (_, c) => [2, -2].map((sign) => Array.from({ length: 6 }, (_, j) => (j === c ? sign : 0))));
    const sample = (centre: readonly number[]) => toy(centre, () => random() * 0.5);
    const lessons = (classes: number) => [
      ...looks.slice(0, classes).flatMap((pair, c) => [0, 1, 0].map((look) => ({ descriptor: sample(pair[look]), classId: `class ${c}` }))),
      ...Array.from({ length: 6 * 3 * classes }, () => ({ descriptor: toy(Array.from({ length: 6 }, () => random() * 2), () => 0), classId: null })),
    ];
    const taughtMany = lessons(6);
    const right = (head: 'logistic' | 'nearest') => {
      const model = new LearnedClasses({ kinds: ['appearance'], head });
      model.learnAll(taughtMany);
      let named = 0;
      looks.forEach((pair, c) => pair.forEach((centre) => (named += model.classify(toy(centre, () => 0))[0].classId === `class ${c}` ? 1 : 0)));
      return named;
    };
    expect(right('nearest')).toBe(12);
    expect(right('logistic')).toBeLessThan(12);

    const taughtOne = lessons(1);
    const query = sample(looks[0][1]);
    const one = (head: 'logistic' | 'nearest') => {
      const model = new LearnedClasses({ kinds: ['appearance'], head });
      model.learnAll(taughtOne);
      return model.classify(query);
    };
    const [nearest, logistic] = [one('nearest'), one('logistic')];
    expect(nearest.map((p) => p.classId)).toEqual(logistic.map((p) => p.classId));
    expect(nearest[0].raw).toBeCloseTo(logistic[0].raw, 12);
    expect(nearest[0].probability).toBeCloseTo(logistic[0].probability, 12);
  });
});

describe('LearnedClasses, the blend head', () => {
  // Two classes that look alike (the same appearance) and that the detectors tell apart by their
  // own column of the class's name, among many noisy columns: what a cosine over the whole block misses.
  const cupColumn = DETECTOR_CONCEPTS.indexOf('cup');
  const bowlColumn = DETECTOR_CONCEPTS.indexOf('bowl');
  const object = (classId: 'cup' | 'bowl' | null, random: () => number): RegionDescriptor => {
    const detectors = DETECTOR_CONCEPTS.map(() => Math.abs(random()) * 0.5);
    if (classId) detectors[classId === 'cup' ? cupColumn : bowlColumn] = 0.8;
    return { sam: [], detectors, appearance: [1, 1, 0, 0].map((v) => (classId ? v : -v) + random()), backbone: [] };
  };
  const named = (head: 'nearest' | 'blend') => {
    const random = generator(5);
    const model = new LearnedClasses({ kinds: ['appearance', 'detectors'], head });
    for (let round = 0; round < 8; round++) {
      model.learnAll([
        ...Array.from({ length: 5 }, () => ({ descriptor: object('cup', random), classId: 'cup' })),
        ...Array.from({ length: 5 }, () => ({ descriptor: object('bowl', random), classId: 'bowl' })),
        ...Array.from({ length: 10 }, () => ({ descriptor: object(null, random), classId: null })),
      ]);
    }
    let right = 0;
    for (let i = 0; i < 40; i++) {
      const classId = i % 2 ? 'cup' : 'bowl';
      if (model.classify(object(classId, random))[0].classId === classId) right++;
    }
    return { right, model };
  };

  it("names what the detectors' column of the class says once the person's objects show it right, where the nearest examples alone guess", () => {
    const [blend, nearest] = [named('blend').right, named('nearest').right];
    expect(blend).toBeGreaterThanOrEqual(38);
    expect(nearest).toBeLessThan(blend - 3);
  });

  it('restores its weights from JSON, and a model saved before it names as the nearest examples do until it has scored new objects', () => {
    const { model } = named('blend');
    const query = object('cup', generator(9));
    const copy = LearnedClasses.fromJSON(JSON.parse(JSON.stringify(model.toJSON())), { head: 'blend' });
    expect(copy.classify(query)).toEqual(model.classify(query));
    const { naming: _naming, ...saved } = JSON.parse(JSON.stringify(model.toJSON())) as LearnedClassesState;
    const old = LearnedClasses.fromJSON(saved, { head: 'blend' });
    const nearest = LearnedClasses.fromJSON(saved, { head: 'nearest' });
    expect(old.classify(query)).toEqual(nearest.classify(query));
  });
});
