import { describe, expect, it } from 'vitest';
import { EMBEDDING_ENCODING, type EmbeddingResponse } from '../../contract/embeddings';
import { quantizeEmbedding } from '../../engine/embeddingCodec';
import { RemoteCallError } from '../remote/remoteClient';
import { embeddingRecordOf, fallbackNotice, problemOf, ServerEmbeddingUnavailable } from './serverEmbedding';

const MODEL = `sam-encoder-int8.onnx@${'a'.repeat(64)}`;

function served(values: number[], model = MODEL): EmbeddingResponse {
  const dims = [1, 2, 1, values.length / 2];
  const { scales, data } = quantizeEmbedding({ data: Float32Array.from(values), dims });
  return {
    imageId: 'sha256:x',
    model: { file: model.split('@')[0], sha256: model.split('@')[1], id: model },
    width: 10,
    height: 10,
    embedding: { dims, encoding: EMBEDDING_ENCODING, scales: Array.from(scales), data: Buffer.from(data.buffer).toString('base64') },
  };
}

describe('server-made embeddings in the browser', () => {
  it('turns the wire form back into the fp32 record the worker imports, under this browser\'s model', () => {
    const record = embeddingRecordOf(served([1, -0.5, 0.25, 0, 3, -3]), MODEL);
    expect(record.model).toBe(MODEL);
    expect(record.dims).toEqual([1, 2, 1, 3]);
    const expected = [1, -0.5, 0.25, 0, 3, -3];
    record.data.forEach((v, i) => expect(v).toBeCloseTo(expected[i], 2));
  });

  it('refuses an embedding of another encoder: a click never decodes another model\'s embedding', () => {
    const other = `sam-encoder.onnx@${'b'.repeat(64)}`;
    expect(() => embeddingRecordOf(served([1, 2], other), MODEL)).toThrow(ServerEmbeddingUnavailable);
    expect(() => embeddingRecordOf(served([1, 2], other), MODEL)).toThrow(/not this browser's/);
  });

  it('names why the server gave none, and says so to the user', () => {
    expect(problemOf(new RemoteCallError('x', 402, 'req_1', '/problems/insufficient-credits')).problem).toBe('credits');
    expect(problemOf(new RemoteCallError('x', 'network-error', null)).problem).toBe('offline');
    expect(problemOf(new RemoteCallError('x', 409, 'req_1', '/problems/model-mismatch')).problem).toBe('model');
    expect(problemOf(new RemoteCallError('x', 500, 'req_1', '/problems/engine-failure')).problem).toBe('failed');
    expect(fallbackNotice(new ServerEmbeddingUnavailable('credits', ''))).toMatch(/No credit left.*analysed on this device/);
    expect(fallbackNotice(new ServerEmbeddingUnavailable('offline', ''))).toMatch(/cannot be reached/);
  });
});
