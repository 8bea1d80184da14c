import { readFileSync } from 'node:fs';
import onnxProto from 'onnx-proto';
import { describe, expect, it } from 'vitest';
import { createNodeRuntime } from '../src/engine/adapters/ort-node';
import { decodeImage } from '../src/engine/adapters/node-image';
import { SegmentationEngine } from '../src/engine/engine';
import { maskIoU } from '../src/engine/polygons';
import { quantizeDecoderProjections, quantizePerColumn } from './onnx-quantize.mjs';
import { sharedPath } from '../test/support/shared-data';

const { onnx } = onnxProto;
const decoderPath = 'public/models/sam-decoder.onnx';

describe('quantizePerColumn', () => {
  it('reconstructs every weight within half a step of its column scale', () => {
    const rows = 5;
    const cols = 3;
    const w = Float32Array.from({ length: rows * cols }, (_, i) => Math.sin(i * 1.7) * (1 + (i % cols) * 10));
    const { q, scale } = quantizePerColumn(w, rows, cols);
    for (let k = 0; k < rows; k++) {
      for (let n = 0; n < cols; n++) expect(Math.abs(q[k * cols + n] * scale[n] - w[k * cols + n])).toBeLessThanOrEqual(scale[n] / 2 + 1e-6);
    }
    expect(quantizePerColumn(new Float32Array(4), 2, 2).scale).toEqual(new Float32Array([1, 1]));
  });
});

describe('quantizeDecoderProjections', () => {
  it('replaces exactly the ten image-side projections with integer matmuls, keeping inputs and outputs', () => {
    const original = onnx.ModelProto.decode(readFileSync(decoderPath)).graph!;
    const { bytes, quantized } = quantizeDecoderProjections(readFileSync(decoderPath));
    const graph = onnx.ModelProto.decode(bytes).graph!;
    expect(quantized).toHaveLength(10);
    expect(graph.node!.filter((n) => n.opType === 'MatMulInteger')).toHaveLength(10);
    expect(graph.input!.map((i) => i.name)).toEqual(original.input!.map((i) => i.name));
    expect(graph.output!.map((o) => o.name)).toEqual(original.output!.map((o) => o.name));
    const names = new Set(graph.node!.map((n) => n.name));
    for (const name of quantized) expect(names.has(name)).toBe(false);
  });

  it('fails loudly on a graph without those projections', () => {
    const model = onnx.ModelProto.create({
      irVersion: 8,
      graph: onnx.GraphProto.create({ name: 'other', node: [onnx.NodeProto.create({ name: 'x', opType: 'Identity', input: ['a'], output: ['b'] })] }),
    });
    expect(() => quantizeDecoderProjections(onnx.ModelProto.encode(model).finish())).toThrow(/no image-side projection/);
  });

  it('gives masks that overlap the float decoder’s closely on a real photo', async () => {
    const runtime = createNodeRuntime();
    const encoder = 'public/models/sam-encoder.onnx';
    const reference = await SegmentationEngine.create(runtime, { encoder, decoder: decoderPath });
    const int8 = await SegmentationEngine.create(runtime, { encoder, decoder: quantizeDecoderProjections(readFileSync(decoderPath)).bytes });
    const image = await decodeImage(readFileSync(sharedPath('samples/coffee.png')));
    await reference.embed(image, 'coffee');
    await int8.embed(image, 'coffee');
    const ious: number[] = [];
    for (const point of [{ x: 290, y: 140 }, { x: 370, y: 280 }, { x: 230, y: 270 }, { x: 120, y: 250 }, { x: 520, y: 120 }, { x: 300, y: 60 }]) {
      const a = (await reference.predict('coffee', { points: [point] }, { multimask: true })).candidates;
      const b = (await int8.predict('coffee', { points: [point] }, { multimask: true })).candidates;
      // Compare like with like: the int8 candidate closest to each reference candidate.
      for (const ca of a) ious.push(Math.max(...b.map((cb) => maskIoU(ca.mask, cb.mask))));
    }
    ious.sort((x, y) => x - y);
    expect(ious[Math.floor(ious.length / 2)]).toBeGreaterThan(0.98);
    expect(ious[Math.floor(ious.length * 0.1)]).toBeGreaterThan(0.9);
    await Promise.all([reference.release(), int8.release()]);
  });
});
