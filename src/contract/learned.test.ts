import { describe, expect, it } from 'vitest';
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
