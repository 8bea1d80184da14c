/**
 * An image embedding made compact for the wire: int8 with one scale per channel (symmetric, the
 * largest magnitude of each channel maps to 127). A quarter of fp32's bytes; the masks decoded
 * from it agree with the fp32 embedding's (embeddingCodec.test.ts measures how closely).
 * Per channel because SAM's 256 embedding channels differ in range by orders of magnitude: one
 * scale for all would round the quiet channels to zero.
 */
import type { Tensor } from './runtime';

export interface QuantizedEmbedding {
  dims: number[];
  /** One per channel (dims[1]); value = int8 × scale. */
  scales: Float32Array;
  /** The int8 values in the tensor's own order (N, C, H, W). */
  data: Int8Array;
}

/** Channel count and values per channel of an (N=1, C, H, W) embedding. */
function channelShape(dims: readonly number[]): { channels: number; perChannel: number } {
  if (dims.length !== 4 || dims[0] !== 1) throw new Error(`an embedding is (1, C, H, W), got (${dims.join(', ')})`);
  return { channels: dims[1], perChannel: dims[2] * dims[3] };
}

export function quantizeEmbedding(embedding: Tensor): QuantizedEmbedding {
  const { channels, perChannel } = channelShape(embedding.dims);
  const source = embedding.data;
  if (source.length !== channels * perChannel) throw new Error('embedding data does not match its dims');
  const scales = new Float32Array(channels);
  const data = new Int8Array(source.length);
  for (let c = 0; c < channels; c++) {
    const start = c * perChannel;
    let largest = 0;
    for (let i = start; i < start + perChannel; i++) largest = Math.max(largest, Math.abs(source[i]));
    const scale = largest / 127;
    scales[c] = scale;
    if (scale === 0) continue;
    const inverse = 1 / scale;
    for (let i = start; i < start + perChannel; i++) data[i] = Math.round(source[i] * inverse);
  }
  return { dims: [...embedding.dims], scales, data };
}

export function dequantizeEmbedding(quantized: QuantizedEmbedding): Tensor {
  const { channels, perChannel } = channelShape(quantized.dims);
  if (quantized.scales.length !== channels || quantized.data.length !== channels * perChannel) {
    throw new Error('quantized embedding: scales or data do not match its dims');
  }
  const out = new Float32Array(quantized.data.length);
  for (let c = 0; c < channels; c++) {
    const scale = quantized.scales[c];
    const start = c * perChannel;
    for (let i = start; i < start + perChannel; i++) out[i] = quantized.data[i] * scale;
  }
  return { data: out, dims: [...quantized.dims] };
}
