import { describe, expect, it } from 'vitest';
import type { Tensor } from '../runtime';
import type { RgbaImage } from '../types';
import { PhotoContexts } from './photoContexts';

const photo: RgbaImage = { width: 64, height: 48, data: new Uint8ClampedArray(64 * 48 * 4) };
const embedding = (): Tensor => ({ dims: [1, 256, 64, 64], data: new Float32Array(256 * 64 * 64).fill(0.5) }) as unknown as Tensor;

/** The engine's cache as PhotoContexts reads it: image key → the embedding it holds now. */
function engineHolding(entries: Record<string, Tensor>) {
  return { getEmbedding: (key: string) => (entries[key] ? { embedding: entries[key], width: photo.width, height: photo.height } : undefined) };
}

describe('PhotoContexts', () => {
  it('runs the detectors once per photo while the engine holds its embedding, again once it was embedded anew', async () => {
    const held = { a: embedding() };
    const engine = engineHolding(held);
    const contexts = new PhotoContexts();
    let runs = 0;
    const detect = async () => (runs++, { detections: [] });
    expect((await contexts.of(engine, 'a', photo, detect)).reused).toBe(false);
    expect((await contexts.of(engine, 'a', photo, detect)).reused).toBe(true);
    expect(runs).toBe(1);
    // The engine let the embedding go and made it again: the cells are pooled from the new one.
    held.a = embedding();
    expect((await contexts.of(engine, 'a', photo, detect)).reused).toBe(false);
    expect(runs).toBe(2);
  });

  it('keeps the photos described last, the least recently described going first', async () => {
    const engine = engineHolding({ a: embedding(), b: embedding(), c: embedding() });
    const contexts = new PhotoContexts(2);
    const detect = async () => ({ detections: [] });
    await contexts.of(engine, 'a', photo, detect);
    await contexts.of(engine, 'b', photo, detect);
    await contexts.of(engine, 'a', photo, detect);
    await contexts.of(engine, 'c', photo, detect);
    expect((await contexts.of(engine, 'a', photo, detect)).reused).toBe(true);
    expect((await contexts.of(engine, 'b', photo, detect)).reused).toBe(false);
  });
});
