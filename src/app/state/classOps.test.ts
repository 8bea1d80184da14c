import { describe, expect, it } from 'vitest';
import { addClass, assignClass, classAtKey, deleteClass, ensureClassNamed, moveClass, setActiveClass, updateClass } from './classOps';
import { addImage, addObjects } from './documentOps';
import { emptyDocument } from './model';

const image = { id: 'img', name: 'a.png', width: 10, height: 10 };
const square = { outer: [[1, 1], [5, 1], [5, 5], [1, 5]] as [number, number][], holes: [] };

describe('class store', () => {
  it('hands out stable ids: reordering and deleting never renumber', () => {
    let doc = addClass(addClass(addClass(emptyDocument(), 'cat'), 'dog'), 'bird');
    expect(doc.classes.map((c) => [c.id, c.name])).toEqual([[1, 'cat'], [2, 'dog'], [3, 'bird']]);
    expect(doc.activeClassId).toBe(1);
    doc = moveClass(doc, 3, -2);
    expect(doc.classes.map((c) => c.id)).toEqual([3, 1, 2]);
    expect(classAtKey(doc, 1)?.name).toBe('bird');
    doc = deleteClass(doc, 1);
    doc = addClass(doc, 'fish');
    expect(doc.classes.map((c) => [c.id, c.name])).toEqual([[3, 'bird'], [2, 'dog'], [4, 'fish']]);
  });

  it('renames and recolours; a blank name is refused', () => {
    let doc = addClass(emptyDocument(), 'cat');
    doc = updateClass(doc, 1, { name: 'kitten', color: '#000000' });
    expect(doc.classes[0]).toMatchObject({ name: 'kitten', color: '#000000' });
    expect(updateClass(doc, 1, { name: '  ' })).toBe(doc);
  });

  it('deleting a class leaves its objects unlabelled, not deleted', () => {
    let doc = addClass(addImage(emptyDocument(), image), 'cat');
    doc = addObjects(doc, 'img', [{ id: 'o1', label: 'x', classId: 1, confidence: 1, visible: true, polygons: [square], source: 'local' }]);
    doc = deleteClass(doc, 1);
    expect(doc.objects.img).toHaveLength(1);
    expect(doc.objects.img[0].classId).toBeNull();
    expect(doc.activeClassId).toBeNull();
  });

  it('text results take the class of their label, created once when missing', () => {
    let doc = addClass(addImage(emptyDocument(), image), 'Cup');
    doc = addObjects(doc, 'img', [
      { id: 'a', label: 'cup', confidence: 1, visible: true, polygons: [square], source: 'text' },
      { id: 'b', label: 'spoon', confidence: 1, visible: true, polygons: [square], source: 'text' },
      { id: 'c', label: 'spoon', confidence: 1, visible: true, polygons: [square], source: 'text' },
    ]);
    expect(doc.classes.map((c) => c.name)).toEqual(['Cup', 'spoon']);
    expect(doc.objects.img.map((o) => o.classId)).toEqual([1, 2, 2]);
    expect(ensureClassNamed(doc, 'SPOON').classId).toBe(2);
  });

  it('assigns and picks only existing classes', () => {
    let doc = addClass(addImage(emptyDocument(), image), 'cat');
    doc = addObjects(doc, 'img', [{ id: 'o1', label: 'x', classId: null, confidence: 1, visible: true, polygons: [square], source: 'local' }]);
    expect(assignClass(doc, 'img', ['o1'], 7)).toBe(doc);
    expect(assignClass(doc, 'img', ['o1'], 1).objects.img[0].classId).toBe(1);
    expect(setActiveClass(doc, 7)).toBe(doc);
  });
});

describe('class ids for the life of the session', () => {
  it('never hands a deleted class’s id to a new class, even the highest', () => {
    let doc = addClass(addClass(emptyDocument(), 'cat'), 'dog');
    doc = deleteClass(doc, 2);
    doc = addClass(doc, 'bird');
    expect(doc.classes.map((c) => [c.id, c.name])).toEqual([
      [1, 'cat'],
      [3, 'bird'],
    ]);
  });
});
