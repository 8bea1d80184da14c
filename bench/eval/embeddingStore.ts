/**
 * Image embeddings on disk, so that evaluation runs which only change the decoding rule do not run
 * the encoder again. Keyed by the image's pixel content and the encoder file's SHA-256; a file is the
 * dims (uint32 count, then uint32 each) followed by the float32 data. Nothing here is committed:
 * the default folder is under the system's temporary directory.
 */
import { createHash } from 'node:crypto';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { EmbeddingStore } from '../../src/engine/engine';
import type { Tensor } from '../../src/engine/runtime';

export function encodeTensor(tensor: Tensor): Uint8Array {
  const header = new Uint32Array([tensor.dims.length, ...tensor.dims]);
  const out = new Uint8Array(header.byteLength + tensor.data.byteLength);
  out.set(new Uint8Array(header.buffer), 0);
  out.set(new Uint8Array(tensor.data.buffer, tensor.data.byteOffset, tensor.data.byteLength), header.byteLength);
  return out;
}

export function decodeTensor(bytes: Uint8Array): Tensor {
  const copy = bytes.slice(); // aligned, owned
  const view = new DataView(copy.buffer);
  const rank = view.getUint32(0, true);
  const dims = Array.from({ length: rank }, (_, i) => view.getUint32(4 + 4 * i, true));
  const offset = 4 * (rank + 1);
  const count = dims.reduce((a, b) => a * b, 1);
  if (copy.byteLength !== offset + 4 * count) throw new Error(`stored embedding has ${copy.byteLength} bytes, expected ${offset + 4 * count}`);
  return { dims, data: new Float32Array(copy.buffer, offset, count) };
}

export function diskEmbeddingStore(encoderFile: string, folder = join(tmpdir(), 'maskwright-embeddings')): EmbeddingStore {
  const model = createHash('sha256').update(readFileSync(encoderFile)).digest('hex').slice(0, 16);
  const dir = join(folder, model);
  const path = (key: string) => join(dir, `${key.replace(/[^a-zA-Z0-9_-]/g, '_')}.tensor`);
  return {
    async load(key) {
      try {
        return decodeTensor(await readFile(path(key)));
      } catch {
        return undefined;
      }
    },
    async save(key, embedding) {
      await mkdir(dir, { recursive: true });
      // Written aside and renamed, so a run killed mid-write never leaves a truncated embedding.
      const temporary = `${path(key)}.${process.pid}.tmp`;
      await writeFile(temporary, encodeTensor(embedding));
      await rename(temporary, path(key));
    },
  };
}
