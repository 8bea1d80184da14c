import { describe, expect, it } from 'vitest';
import { COCO_CLASSES } from './cocoClasses';
import { interpretPrompt, KNOWN_CONCEPTS } from './promptParser';
import { buildVocabulary, CLASS_SYNONYMS, pluralOf } from './vocabulary';

const classesOf = (text: string): readonly string[] => interpretPrompt(text).classes;

describe('interpretPrompt', () => {
  it('maps every class name, singular and plural, to itself', () => {
    for (const name of COCO_CLASSES) {
      expect(classesOf(name), name).toEqual([name]);
      expect(classesOf(pluralOf(name)), pluralOf(name)).toEqual([name]);
    }
  });

  it.each([
    ['puppy', 'dog'], ['puppies', 'dog'], ['automobile', 'car'], ['automobiles', 'car'], ['people', 'person'],
    ['children', 'person'], ['a woman', 'person'], ['Astronaut', 'person'], ['kitten', 'cat'], ['kitties', 'cat'],
    ['sofa', 'couch'], ['fridge', 'refrigerator'], ['smartphone', 'cell phone'], ['doughnuts', 'donut'], ['mice', 'mouse'],
    ['knives', 'knife'], ['television', 'tv'], ['TV', 'tv'], ['motorbike', 'motorcycle'], ['aeroplanes', 'airplane'],
    ['ships', 'boat'], ['lorry', 'truck'], ['coffee mug', 'cup'], ['a coffee cup', 'cup'], ['hair dryer', 'hair drier'],
    ['stuffed animal', 'teddy bear'], ['teddy bear', 'teddy bear'], ['hot dog', 'hot dog'], ['hotdogs', 'hot dog'],
    ['carry-on', 'suitcase'], ['sheep', 'sheep'], ['lambs', 'sheep'], ['calves', 'cow'], ['geese', 'bird'],
    ['dog bed', 'bed'], ['pizza slice', 'pizza'], ['ski', 'skis'], ['  Cats!! ', 'cat'], ['giraffes', 'giraffe'],
  ])('"%s" → %s', (text, expected) => {
    expect(classesOf(text)).toEqual([expected]);
  });

  it('expands general words to several classes', () => {
    expect(classesOf('vehicle')).toEqual(expect.arrayContaining(['car', 'truck', 'bus', 'motorcycle', 'bicycle']));
    expect(classesOf('vehicles')).toEqual(classesOf('vehicle'));
    expect(classesOf('animals')).toEqual(expect.arrayContaining(['cat', 'dog', 'horse', 'bird', 'giraffe']));
    expect(classesOf('animals')).not.toContain('person');
    expect(classesOf('fruit')).toEqual(['banana', 'apple', 'orange']);
    expect(classesOf('pets')).toEqual(['cat', 'dog']);
    expect(classesOf('furniture')).toEqual(expect.arrayContaining(['chair', 'couch', 'bed', 'dining table']));
    expect(classesOf('everything')).toHaveLength(80);
  });

  it('answers prompts about unknown things with no classes and a reason', () => {
    for (const text of ['zebra-striped spaceship', 'spaceship', 'unicorn', 'blue sky', 'the moon', 'a tree', 'road', 'xyzzy', 'the', '!!!']) {
      const result = interpretPrompt(text);
      expect(result.classes, text).toEqual([]);
      expect(result.reason, text).toBeTruthy();
    }
  });

  it('takes the head noun, not a known word used as a modifier', () => {
    expect(classesOf('zebra-striped spaceship')).toEqual([]);
    expect(classesOf('striped zebra')).toEqual(['zebra']);
    expect(interpretPrompt('striped zebra').ignored).toEqual(['striped']);
  });

  it('answers the head noun of a phrase with a relation and lists the unchecked words', () => {
    const result = interpretPrompt('the cat on the sofa');
    expect(result.classes).toEqual(['cat']);
    expect(result.ignored).toEqual(['on', 'the', 'sofa']);
    expect(classesOf('man holding a cup')).toEqual(['person']);
    expect(classesOf('dog with a frisbee')).toEqual(['dog']);
  });

  it('reads colour words as modifiers, but "orange" alone as the fruit', () => {
    expect(interpretPrompt('red car')).toMatchObject({ classes: ['car'], colour: 'red' });
    expect(interpretPrompt('grey mice')).toMatchObject({ classes: ['mouse'], colour: 'gray' });
    expect(interpretPrompt('orange cat')).toMatchObject({ classes: ['cat'], colour: 'orange' });
    expect(interpretPrompt('an orange')).toMatchObject({ classes: ['orange'] });
    expect(interpretPrompt('an orange').colour).toBeUndefined();
  });

  it('reads position and size words as single-instance selectors', () => {
    expect(interpretPrompt('the largest dog')).toMatchObject({ classes: ['dog'], extreme: 'largest' });
    expect(interpretPrompt('smallest cup')).toMatchObject({ extreme: 'smallest' });
    expect(interpretPrompt('left person')).toMatchObject({ classes: ['person'], extreme: 'leftmost' });
    expect(interpretPrompt('red car on the left')).toMatchObject({ classes: ['car'], colour: 'red', extreme: 'leftmost' });
    expect(interpretPrompt('the bus on the right side of the image')).toMatchObject({ classes: ['bus'], extreme: 'rightmost' });
  });

  it('never maps two different classes from one synonym table entry by accident', () => {
    const vocabulary = buildVocabulary();
    for (const name of COCO_CLASSES) {
      for (const synonym of CLASS_SYNONYMS[name]) {
        const entry = vocabulary.get(synonym)!;
        // A synonym may also be a general word ("glass"), but it always includes its own class.
        expect(entry.classes, synonym).toContain(name);
      }
    }
  });

  it('exports the known concepts for the studio', () => {
    // COCO's 80 classes, the face detector's one and the Open Images SSD's three shown working.
    expect(KNOWN_CONCEPTS.classes).toHaveLength(84);
    expect(KNOWN_CONCEPTS.classes).toContain('face');
    expect(KNOWN_CONCEPTS.synonyms.dog).toContain('puppy');
    expect(KNOWN_CONCEPTS.generalWords.vehicle).toContain('car');
    expect(KNOWN_CONCEPTS.colours).toContain('red');
  });
});

describe('concepts beyond COCO', () => {
  it.each([
    ['face', 'face'], ['faces', 'face'], ['human faces', 'face'], ['the smiling face', 'face'], ['body part', 'face'],
  ])('"%s" asks the face detector for %s', (prompt, concept) => {
    expect(interpretPrompt(prompt).classes).toContain(concept);
  });

  it.each([
    ['sneakers', ['footwear']], ['a sneaker', ['footwear']], ['running shoes', ['footwear']], ['sandals', ['footwear']],
    ['high heels', ['high heels']], ['a high heel', ['high heels']], ['stilettos', ['high heels']],
    ['desk', ['desk']], ['office desks', ['desk']],
  ])('"%s" asks the Open Images SSD for %j', (prompt, concepts) => {
    expect(interpretPrompt(prompt).classes).toEqual(concepts);
  });

  it('reads "shoes" and "footwear" as Open Images reads footwear: high heels included', () => {
    for (const prompt of ['shoes', 'a shoe', 'footwear']) expect([...interpretPrompt(prompt).classes].sort(), prompt).toEqual(['footwear', 'high heels']);
    expect(interpretPrompt('furniture').classes).toContain('desk');
  });

  it('does not answer the Open Images labels that were not shown working on a real photo', () => {
    for (const prompt of ['boots', 'a box', 'parcels', 'camera', 'camcorders']) expect(interpretPrompt(prompt).classes, prompt).toEqual([]);
  });

  it('still answers "not a concept it knows" for words no detector knows', () => {
    for (const prompt of ['nose', 'elbow', 'spaceship', 'sock', 'envelope']) expect(interpretPrompt(prompt).classes, prompt).toEqual([]);
  });
});

describe('pluralOf', () => {
  it.each([
    ['dog', 'dogs'], ['bus', 'buses'], ['knife', 'knives'], ['person', 'people'], ['mouse', 'mice'], ['sheep', 'sheep'],
    ['giraffe', 'giraffes'], ['cherry', 'cherries'], ['tomato', 'tomatoes'], ['tv', 'tvs'], ['box', 'boxes'],
    ['wine glass', 'wine glasses'], ['teddy bear', 'teddy bears'], ['toothbrush', 'toothbrushes'], ['bench', 'benches'],
  ])('%s → %s', (singular, plural) => {
    expect(pluralOf(singular)).toBe(plural);
  });
});
