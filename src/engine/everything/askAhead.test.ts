import { describe, expect, it } from 'vitest';
import { askAhead } from './askAhead';

/** Questions whose answers the test releases by hand, recording which were asked. */
function heldQuestions(count: number) {
  const asked: number[] = [];
  const release: ((value: number) => void)[] = [];
  const fail: ((error: Error) => void)[] = [];
  const questions = Array.from({ length: count }, (_, k) => () => {
    asked.push(k);
    return new Promise<number>((resolve, reject) => {
      release[k] = resolve;
      fail[k] = reject;
    });
  });
  return { questions, asked, release, fail };
}

describe('askAhead', () => {
  it('asks up to `ahead` questions before the first answer is taken, and gives the answers in the questions’ order whatever order they come in', async () => {
    const { questions, asked, release } = heldQuestions(5);
    const answers = askAhead(questions, 2);
    const first = answers.next();
    expect(asked).toEqual([0, 1]);
    release[1](11);
    release[0](10);
    expect(await first).toBe(10);
    const second = answers.next();
    expect(asked).toEqual([0, 1, 2]);
    expect(await second).toBe(11);
    for (const k of [2, 3, 4]) release[k]?.(10 + k);
    const rest = [];
    for (let k = 2; k < 5; k++) {
      const next = answers.next();
      for (const j of [3, 4]) release[j]?.(10 + j);
      rest.push(await next);
    }
    expect(rest).toEqual([12, 13, 14]);
    expect(asked).toEqual([0, 1, 2, 3, 4]);
  });

  it('one ahead asks each question only when its answer is taken', async () => {
    const { questions, asked, release } = heldQuestions(3);
    const answers = askAhead(questions, 1);
    const first = answers.next();
    expect(asked).toEqual([0]);
    release[0](0);
    await first;
    expect(asked).toEqual([0]);
  });

  it('a caller that stops leaves later questions unasked, and an asked one failing unawaited is not an unhandled rejection', async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      const { questions, asked, release, fail } = heldQuestions(6);
      const answers = askAhead(questions, 2);
      const first = answers.next();
      fail[1](new Error('aborted'));
      release[0](0);
      expect(await first).toBe(0);
      await new Promise((resolve) => setTimeout(resolve, 10));
      expect(asked).toEqual([0, 1]);
      expect(unhandled).toEqual([]);
      await expect(answers.next()).rejects.toThrow('aborted');
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });
});
