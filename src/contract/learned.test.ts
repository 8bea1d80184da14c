import { describe, expect, it } from 'vitest';
import { DETECTOR_CONCEPTS } from '../engine/learn/descriptors';
import { LearnedClasses } from '../engine/learn/learnedClasses';
import { unpackExamples } from '../engine/learn/packedExamples';
import { LearnedModelState } from './learned';

function model() {
  const classes = new LearnedClasses({ kinds: ['appearance'] });
  const descriptor = (v: number) => ({ sam: [], detectors: [], backbone: [], appearance: [v, 1 - v, v / 2] });
  classes.learnAll([
    { descriptor: descriptor(0.9), classId: 'cat' },
    { descriptor: descriptor(0.1), classId: null },
  ]);
  return JSON.parse(JSON.stringify(classes.toJSON()));
}

describe('LearnedModelState', () => {
  it('takes the packed examples a model writes now, and the examples of a model written before them', () => {
    const now = model();
    expect(LearnedModelState.safeParse(now).success).toBe(true);
    const before = { ...now, examples: unpackExamples(now.packedExamples).map((e) => ({ x: [...e.x], c: e.c })) };
    delete before.packedExamples;
    expect(LearnedModelState.safeParse(before).success).toBe(true);
  });

  it('refuses packed examples that do not fit the model', () => {
    const now = model();
    const short = LearnedModelState.safeParse({ ...now, packedExamples: { ...now.packedExamples, float16: now.packedExamples.float16.slice(0, 8) } });
    expect(short.error?.issues.map((i) => i.path.join('.'))).toContain('packedExamples.float16');
    const unknownClass = LearnedModelState.safeParse({ ...now, packedExamples: { ...now.packedExamples, classes: [0, 5] } });
    expect(unknownClass.error?.issues.map((i) => i.path.join('.'))).toContain('packedExamples.classes');
    const notBase64 = LearnedModelState.safeParse({ ...now, packedExamples: { ...now.packedExamples, float16: 'ab$d' } });
    expect(notBase64.success).toBe(false);
  });
});

/** A model that has shown one proposal and been told it was wrong. */
function decidedModel(): LearnedClasses {
  const model = new LearnedClasses({ kinds: ['appearance'] });
  model.learnAll([
    { descriptor: { sam: [], detectors: [], appearance: [1, 0], backbone: [] }, classId: 'cat' },
    { descriptor: { sam: [], detectors: [], appearance: [0, 1], backbone: [] }, classId: null },
  ]);
  const [shown] = model.rankProposals([{ box: { x0: 0, y0: 0, x1: 10, y1: 10 }, classId: 'cat', probability: 0.8 }]);
  model.recordProposalOutcomes([{ relation: shown.relation, correct: false }]);
  return model;
}

describe('learned model contract', () => {
  it("keeps the shown probability's calibration a model carries", () => {
    const state = JSON.parse(JSON.stringify(decidedModel().toJSON()));
    const parsed = LearnedModelState.parse(state);
    expect(parsed.shown?.outcomes).toHaveLength(1);
    expect(parsed.shown).toEqual(state.shown);
  });

  it("keeps the second opinion a detector's decision was recorded with: the server's copy ranks as the studio's", () => {
    const model = decidedModel();
    model.recordDecision({ raw: 0.6, evidence: 0.9, correct: true }, 'detector');
    const state = JSON.parse(JSON.stringify(model.toJSON()));
    const parsed = LearnedModelState.parse(state);
    expect(parsed.decisions.detector).toEqual([{ raw: 0.6, evidence: 0.9, correct: true }]);
    expect(LearnedModelState.safeParse({ ...state, decisions: { detector: [{ raw: 0.6, evidence: 1.5, correct: true }] } }).success).toBe(false);
  });

  it('accepts a model written before the calibration existed', () => {
    const state = JSON.parse(JSON.stringify(decidedModel().toJSON()));
    delete state.shown;
    expect(LearnedModelState.safeParse(state).success).toBe(true);
  });

  it("refuses a decision whose features are not the ranker's", () => {
    const state = JSON.parse(JSON.stringify(decidedModel().toJSON()));
    state.shown.outcomes[0].x = [0.5];
    const result = LearnedModelState.safeParse(state);
    expect(result.success).toBe(false);
    expect(JSON.stringify(result.error?.issues)).toContain('shown');
  });

  it("keeps what the blend head's weights are fitted on, and refuses a record of a class the model does not hold", () => {
    const model = new LearnedClasses({ kinds: ['appearance', 'detectors'], head: 'blend' });
    const random = (() => {
      let s = 3;
      return () => ((s = (s * 48271) % 2147483647) / 2147483647);
    })();
    const descriptor = (c: number) => ({ sam: [], backbone: [], appearance: [c + random(), random()], detectors: DETECTOR_CONCEPTS.map(() => random()) });
    for (let step = 0; step < 4; step++) model.learnAll([0, 1, 2, 0, 1, 2].map((c) => ({ descriptor: descriptor(c), classId: ['cup', 'bowl', 'fork'][c] })));
    const state = JSON.parse(JSON.stringify(model.toJSON()));
    expect(state.naming.records.length).toBeGreaterThan(0);
    expect(LearnedModelState.parse(state).naming).toEqual(state.naming);
    state.naming.records[0].c = state.classes.length;
    expect(JSON.stringify(LearnedModelState.safeParse(state).error?.issues)).toContain('naming');
  });
});
