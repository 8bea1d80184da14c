import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { decodeTensor, diskEmbeddingStore, encodeTensor } from './embeddingStore';

const folder = mkdtempSync(join(tmpdir(), 'mw-embeddings-test-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

describe('diskEmbeddingStore', () => {
  it('round-trips a tensor and keeps models apart by the encoder file', async () => {
    const modelA = join(folder, 'a.onnx');
    const modelB = join(folder, 'b.onnx');
    writeFileSync(modelA, 'model a');
    writeFileSync(modelB, 'model b');
    const tensor = { dims: [1, 2, 3], data: Float32Array.from([1, 2, 3, 4, 5, 6.5]) };
    const a = diskEmbeddingStore(modelA, folder);
    await a.save('px64:2x3:0123456789abcdef', tensor);
    const loaded = await a.load('px64:2x3:0123456789abcdef');
    expect(loaded?.dims).toEqual([1, 2, 3]);
    expect(Array.from(loaded!.data)).toEqual([1, 2, 3, 4, 5, 6.5]);
    expect(await diskEmbeddingStore(modelB, folder).load('px64:2x3:0123456789abcdef')).toBeUndefined();
    expect(await a.load('px64:2x3:other')).toBeUndefined();
  });

  it('rejects a truncated file', () => {
    const bytes = encodeTensor({ dims: [4], data: new Float32Array(4) });
    expect(() => decodeTensor(bytes.subarray(0, bytes.length - 4))).toThrow(/bytes/);
  });
});
