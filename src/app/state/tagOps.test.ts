import { describe, expect, it } from 'vitest';
import { emptyDocument, type StudioDocument } from './model';
import { tagClassesOf, tagsOf, toggleTag } from './tagOps';

const doc: StudioDocument = {
  ...emptyDocument(),
  images: [{ id: 'img', name: 'a.jpg', width: 4, height: 3 }],
  activeImageId: 'img',
  classes: [
    { id: 1, name: 'cat', color: '#f00' },
    { id: 2, name: 'dog', color: '#0f0' },
  ],
};
let n = 0;
const newId = () => `tag-${n++}`;

describe('toggleTag', () => {
  it('sets a tag of the class as a tag annotation without geometry, and takes it off the second time', () => {
    const tagged = toggleTag(doc, 'img', 2, newId);
    expect(tagsOf(tagged, 'img')).toEqual([expect.objectContaining({ kind: 'tag', classId: 2, label: 'dog', polygons: [] })]);
    expect(tagClassesOf(tagged, 'img').map((c) => c.name)).toEqual(['dog']);
    const untagged = toggleTag(tagged, 'img', 2, newId);
    expect(tagsOf(untagged, 'img')).toEqual([]);
  });

  it('keeps one tag per class, lists them in the class order and leaves masks alone', () => {
    const withMask: StudioDocument = { ...doc, objects: { img: [{ id: 'm', label: 'cat 1', classId: 1, confidence: 1, color: '#f00', visible: true, source: 'local', polygons: [] }] } };
    const both = toggleTag(toggleTag(withMask, 'img', 2, newId), 'img', 1, newId);
    expect(tagClassesOf(both, 'img').map((c) => c.name)).toEqual(['cat', 'dog']);
    expect(both.objects.img.filter((o) => o.kind !== 'tag').map((o) => o.id)).toEqual(['m']);
  });

  it('ignores an unknown class or image', () => {
    expect(toggleTag(doc, 'img', 9, newId)).toBe(doc);
    expect(toggleTag(doc, 'nope', 1, newId)).toBe(doc);
  });
});
