import { describe, expect, it } from 'vitest';
import { parseTyped, stringifyTyped } from './typedJson';

describe('typed JSON', () => {
  it('gives back masks and logits as the same typed arrays with the same values', () => {
    const mask = new Uint8Array(70_000).map((_, i) => (i * 7) % 2);
    const logits = new Float32Array([-1.5, 0, 3.25, Number.MAX_VALUE]);
    const doc = { objects: [{ id: 'o1', mask: { width: 350, height: 200, data: mask } }], prompt: { lowResLogits: logits }, name: 'a.png' };
    const back = parseTyped<typeof doc>(stringifyTyped(doc));
    expect(back.objects[0].mask.data).toBeInstanceOf(Uint8Array);
    expect(Array.from(back.objects[0].mask.data)).toEqual(Array.from(mask));
    expect(back.prompt.lowResLogits).toBeInstanceOf(Float32Array);
    expect(Array.from(back.prompt.lowResLogits)).toEqual(Array.from(logits));
    expect(back.name).toBe('a.png');
  });

  it('reads a view into a larger buffer as only its own bytes', () => {
    const buffer = new Uint8Array([9, 9, 1, 2, 3, 9]);
    expect(Array.from(parseTyped<Uint8Array>(stringifyTyped(buffer.subarray(2, 5))))).toEqual([1, 2, 3]);
  });
});
