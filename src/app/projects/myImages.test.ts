import { describe, expect, it } from 'vitest';
import { myImagesFirst } from './myImages';

const images = [
  { id: 'a', assignee: null },
  { id: 'b', assignee: 'bob@example.com' },
  { id: 'c', assignee: 'carol@example.com' },
  { id: 'd', assignee: 'Bob@Example.com' },
  { id: 'e' },
];

describe('myImagesFirst', () => {
  it("puts the images assigned to me first, keeping the project's order within each group", () => {
    expect(myImagesFirst(images, 'bob@example.com').map((i) => i.id)).toEqual(['b', 'd', 'a', 'c', 'e']);
  });

  it('keeps the order for someone with no assignment, or no known account', () => {
    expect(myImagesFirst(images, 'dave@example.com').map((i) => i.id)).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(myImagesFirst(images, null).map((i) => i.id)).toEqual(['a', 'b', 'c', 'd', 'e']);
  });
});
