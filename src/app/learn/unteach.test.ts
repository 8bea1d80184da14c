/**
 * Undo unteaches (issue 37): an object's lesson lives as long as the object teaches it. Undoing or
 * deleting an object the learner was taught from takes its example out of the model, and an object
 * re-classed teaches its new class instead of both.
 */
import { describe, expect, it } from 'vitest';
import { LearnedClasses } from '../../engine/learn/learnedClasses';
import { documentWith, drawn, examplesOf, PHOTO, testStudio } from './testLearners';

describe('the learner follows undo', () => {
  it('an object undone or deleted takes its lesson with it, and the saved model no longer holds it', async () => {
    const reds = [0, 1, 2].map((n) => drawn('red', n));
    const studio = testStudio([...reds, drawn('blue', 0)]);
    await studio.learner.learnPending();
    expect(examplesOf(studio, 'red')).toBe(3);
    // Undo of the last red box: the document as it was before it.
    studio.doc = documentWith([reds[0], reds[1], drawn('blue', 0)]);
    await studio.learner.learnPending();
    expect(examplesOf(studio, 'red')).toBe(2);
    expect(studio.learner.taughtLessons().has(reds[2].id)).toBe(false);
    const restored = LearnedClasses.fromJSON(JSON.parse(JSON.stringify(studio.learner.learnedModel().model)));
    expect(restored.examplesOf('red')).toBe(2);
    // Redo teaches it again, once.
    studio.doc = documentWith([...reds, drawn('blue', 0)]);
    await studio.learner.learnPending();
    expect(examplesOf(studio, 'red')).toBe(3);
  });

  it('an object re-classed is an example of its new class only', async () => {
    const box = drawn('red', 0);
    const studio = testStudio([box, drawn('blue', 0)]);
    await studio.learner.learnPending();
    expect(examplesOf(studio, 'red')).toBe(1);
    const green = documentWith([]).classes.find((c) => c.name === 'green')!;
    studio.doc = documentWith([{ ...box, classId: green.id, label: 'green' }, drawn('blue', 0)]);
    await studio.learner.learnPending();
    expect(examplesOf(studio, 'green')).toBe(1);
    expect(examplesOf(studio, 'red')).toBe(0);
    expect(studio.doc.objects[PHOTO]).toHaveLength(2);
  });
});
