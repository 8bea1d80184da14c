/**
 * The wire form of an embedding: exact structure, bounded rounding error, and — on a real photo with
 * the server's encoder — masks decoded from the int8 embedding that agree with the fp32 embedding's.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { decodeImage } from './adapters/nodeImage';
import { createNodeRuntime, defaultModelDir } from './adapters/ortNode';
import { samFiles } from './catalog';
import { SegmentationEngine } from './engine';
import { dequantizeEmbedding, quantizeEmbedding } from './embeddingCodec';
import { maskIoU } from './iou';
import { sharedPath } from '../../test/support/sharedData';

describe('embedding codec', () => {
  it('keeps each channel within half a step of its own scale, and a silent channel exactly zero', () => {
    const dims = [1, 3, 2, 2];
    const data = new Float32Array([0.5, -0.25, 0.125, -0.5, 100, -3, 7, 0.01, 0, 0, 0, 0]);
    const quantized = quantizeEmbedding({ data, dims });
    expect(quantized.scales[0]).toBe(Math.fround(0.5 / 127));
    expect(quantized.scales[1]).toBe(Math.fround(100 / 127));
    expect(quantized.scales[2]).toBe(0);
    const back = dequantizeEmbedding(quantized);
    expect(back.dims).toEqual(dims);
    for (let i = 0; i < data.length; i++) {
      const scale = quantized.scales[Math.floor(i / 4)];
      expect(Math.abs(back.data[i] - data[i])).toBeLessThanOrEqual(scale / 2 + 1e-7);
    }
    expect([...back.data.slice(8)]).toEqual([0, 0, 0, 0]);
  });

  it('refuses what is not a (1, C, H, W) embedding or does not match its dims', () => {
    expect(() => quantizeEmbedding({ data: new Float32Array(4), dims: [4] })).toThrow(/\(1, C, H, W\)/);
    expect(() => dequantizeEmbedding({ dims: [1, 2, 1, 1], scales: new Float32Array(1), data: new Int8Array(2) })).toThrow(/do not match/);
  });

  it('masks from the int8 embedding of a real photo agree with the fp32 embedding (mask IoU)', async () => {
    const image = await decodeImage(readFileSync(sharedPath('samples/coffee.png')));
    const dir = defaultModelDir();
    const files = samFiles({ encoderPrecision: 'int8', decoderPrecision: 'fp32', splitDecoder: false });
    const engine = await SegmentationEngine.create(createNodeRuntime(), { encoder: `${dir}/${files.encoder}`, decoder: `${dir}/${files.decoder}` });
    const { imageKey } = await engine.embed(image, 'fp32');
    const original = engine.getEmbedding(imageKey)!.embedding;
    engine.adoptEmbedding(image, 'int8', dequantizeEmbedding(quantizeEmbedding(original)));
    const clicks = [{ x: 250, y: 230 }, { x: 370, y: 285 }, { x: 120, y: 60 }, { x: 300, y: 330 }];
    const ious: number[] = [];
    for (const click of clicks) {
      const a = (await engine.predict('fp32', { points: [click] }, { multimask: false, mirrorAverage: false })).candidates[0].mask;
      const b = (await engine.predict('int8', { points: [click] }, { multimask: false, mirrorAverage: false })).candidates[0].mask;
      ious.push(maskIoU(a, b));
    }
    console.log(`int8 wire embedding vs fp32, mask IoU per click: ${ious.map((v) => v.toFixed(4)).join(' ')}`);
    for (const iou of ious) expect(iou).toBeGreaterThan(0.99);
  }, 120_000);
});
