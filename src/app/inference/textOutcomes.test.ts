import { describe, expect, it } from 'vitest';
import { interpretPrompt } from '../../engine/text/promptParser';
import { conceptEntries, generalWordEntries } from './knownConcepts';
import { hasUnknown, outcomeMessage, outcomeOf, outcomeSummary } from './textOutcomes';

const answer = (text: string, instances = 0) => {
  const interpretation = interpretPrompt(text);
  return { text, known: interpretation.classes.length > 0, reason: interpretation.reason, instances: Array.from({ length: instances }) };
};

describe('text prompt outcomes', () => {
  it('tells an unknown concept from a known one that was not found, and names the prompt', () => {
    const unknown = outcomeOf(answer('giraffe-striped spaceship'));
    expect(unknown.kind).toBe('unknown');
    expect(outcomeMessage(unknown)).toBe("'giraffe-striped spaceship' is not a concept the local model knows");
    const none = outcomeOf(answer('cat'));
    expect(none).toEqual({ kind: 'none', text: 'cat' });
    expect(outcomeMessage(none)).toBe('no cat found');
    const found = outcomeOf(answer('kittens', 2));
    expect(outcomeMessage(found)).toBe('kittens: 2 found');
  });

  it('says which concept a general word matched, with what confidence', () => {
    const animal = outcomeOf({
      text: 'animal',
      known: true,
      classes: interpretPrompt('animal').classes,
      instances: [{ label: 'dog', confidence: 0.72 }, { label: 'horse', confidence: 0.551 }],
    });
    expect(outcomeMessage(animal)).toBe('animal: 2 found — dog 72 %, horse 55 %');
    const cats = outcomeOf({ text: 'cats', known: true, classes: ['cat'], instances: [{ label: 'cat', confidence: 0.9 }] });
    expect(outcomeMessage(cats)).toBe('cats: 1 found');
  });

  it('summarises the run', () => {
    expect(outcomeSummary([outcomeOf(answer('cup', 1)), outcomeOf(answer('spoon', 2))])).toBe('3 objects found in this browser');
    expect(outcomeSummary([outcomeOf(answer('cup', 1)), outcomeOf(answer('warp drive'))])).toBe('1 object found in this browser');
    expect(outcomeSummary([outcomeOf(answer('warp drive'))])).toMatch(/knows none of these words/);
    expect(hasUnknown([outcomeOf(answer('cup', 1)), outcomeOf(answer('warp drive'))])).toBe(true);
    expect(hasUnknown([outcomeOf(answer('cup'))])).toBe(false);
  });
});

describe('known concepts list', () => {
  it("lists COCO's 80 classes, face and the Open Images concepts alphabetically, each with at most a few other words and its detectors", () => {
    const entries = conceptEntries(3);
    expect(entries).toHaveLength(84);
    expect(entries.map((e) => e.name)).toEqual([...entries.map((e) => e.name)].sort((a, b) => a.localeCompare(b)));
    expect(entries.find((e) => e.name === 'cat')?.examples).toEqual(['kitten', 'kitty', 'tabby']);
    expect(entries.every((e) => e.examples.length <= 3)).toBe(true);
    expect(entries.find((e) => e.name === 'cat')?.sources).toEqual(['CenterNet (COCO)', 'COCO-SSD (COCO)']);
    expect(entries.find((e) => e.name === 'face')?.sources).toEqual(['BlazeFace (faces)']);
    for (const name of ['footwear', 'high heels', 'desk']) {
      expect(entries.find((e) => e.name === name)?.sources, name).toEqual(['Open Images SSD (MediaPipe Objectron)']);
    }
    // Every word shown is one the parser really understands as that class.
    for (const entry of entries) for (const word of [entry.name, ...entry.examples]) expect(interpretPrompt(word).classes).toContain(entry.name);
  });

  it('lists general words with the classes they stand for', () => {
    const animal = generalWordEntries().find((e) => e.name === 'animal');
    expect(animal?.examples).toContain('cat');
    for (const entry of generalWordEntries()) expect([...interpretPrompt(entry.name).classes].sort()).toEqual([...entry.examples].sort());
  });
});
