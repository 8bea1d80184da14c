import { readFileSync } from 'node:fs';
import onnxProto from 'onnx-proto';
import { describe, expect, it } from 'vitest';
import { createNodeRuntime } from '../src/engine/adapters/ortNode';
import { decodeImage } from '../src/engine/adapters/nodeImage';
import { SegmentationEngine } from '../src/engine/engine';
import { maskIoU } from '../src/engine/polygons';
import { quantizeDecoderProjections, quantizeModel, quantizePerColumn } from './onnxQuantize.mjs';
import { sharedPath } from '../test/support/sharedData';

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
      const a = (await reference.predict('coffee', { points: [point] }, { multimask: true, mirrorAverage: false })).candidates;
      const b = (await int8.predict('coffee', { points: [point] }, { multimask: true, mirrorAverage: false })).candidates;
      // Compare like with like: the int8 candidate closest to each reference candidate.
      for (const ca of a) ious.push(Math.max(...b.map((cb) => maskIoU(ca.mask, cb.mask))));
    }
    ious.sort((x, y) => x - y);
    expect(ious[Math.floor(ious.length / 2)]).toBeGreaterThan(0.98);
    expect(ious[Math.floor(ious.length * 0.1)]).toBeGreaterThan(0.9);
    await Promise.all([reference.release(), int8.release()]);
  });
});

describe('quantizeModel', () => {
  const T = onnx.TensorProto.DataType;
  const floatTensor = (name: string, dims: number[], values: number[]) =>
    onnx.TensorProto.create({ name, dims, dataType: T.FLOAT, rawData: new Uint8Array(Float32Array.from(values).buffer) });
  const info = (name: string, dims: number[]) =>
    onnx.ValueInfoProto.create({ name, type: onnx.TypeProto.create({ tensorType: onnx.TypeProto.Tensor.create({ elemType: T.FLOAT, shape: onnx.TensorShapeProto.create({ dim: dims.map((d) => onnx.TensorShapeProto.Dimension.create({ dimValue: d })) }) }) }) });
  const node = (opType: string, input: string[], output: string[], attribute: ReturnType<typeof onnx.AttributeProto.create>[] = []) =>
    onnx.NodeProto.create({ name: `${opType}_${output[0]}`, opType, input, output, attribute });

  /** x → MatMul(W) → exact erf GELU (as PyTorch exports it) → Conv 1×1 → y. */
  function tinyModel(): Uint8Array {
    const k = 8;
    const w = Array.from({ length: k * k }, (_, i) => Math.sin(i * 0.7));
    const convW = Array.from({ length: k * k }, (_, i) => Math.cos(i * 0.3));
    const graph = onnx.GraphProto.create({
      name: 'tiny',
      input: [info('x', [1, k, 4, 4])],
      output: [info('y', [1, k, 4, 4])],
      initializer: [
        floatTensor('W', [k, k], w),
        floatTensor('sqrt2', [], [Math.SQRT2]),
        floatTensor('one', [], [1]),
        floatTensor('half', [], [0.5]),
        floatTensor('convW', [k, k, 1, 1], convW),
        floatTensor('convB', [k], Array.from({ length: k }, (_, i) => i / 10)),
      ],
      node: [
        node('Transpose', ['x'], ['xt'], [onnx.AttributeProto.create({ name: 'perm', type: onnx.AttributeProto.AttributeType.INTS, ints: [0, 2, 3, 1] })]),
        node('MatMul', ['xt', 'W'], ['m']),
        node('Div', ['m', 'sqrt2'], ['d']),
        node('Erf', ['d'], ['e']),
        node('Add', ['e', 'one'], ['a']),
        node('Mul', ['m', 'a'], ['g0']),
        node('Mul', ['g0', 'half'], ['g']),
        node('Transpose', ['g'], ['gt'], [onnx.AttributeProto.create({ name: 'perm', type: onnx.AttributeProto.AttributeType.INTS, ints: [0, 3, 1, 2] })]),
        node('Conv', ['gt', 'convW', 'convB'], ['y']),
      ],
    });
    return onnx.ModelProto.encode(onnx.ModelProto.create({ irVersion: 8, opsetImport: [{ domain: '', version: 17 }], graph })).finish();
  }

  async function run(bytes: Uint8Array, x: Float32Array): Promise<Float32Array> {
    const ort = await import('onnxruntime-node');
    const session = await ort.InferenceSession.create(bytes);
    const out = await session.run({ x: new ort.Tensor('float32', x, [1, 8, 4, 4]) });
    await session.release();
    return out.y.data as Float32Array;
  }

  it('replaces the erf GELU with FastGelu and weight products with integer ones, and stays close to the float graph', async () => {
    const bytes = tinyModel();
    const { bytes: fast, quantized, fastGelus } = quantizeModel(bytes, { fastGelu: true, conv: true, convMinInputs: 8 });
    expect(fastGelus).toBe(1);
    expect(quantized).toHaveLength(2);
    const graph = onnx.ModelProto.decode(fast).graph!;
    const ops = graph.node!.map((n) => n.opType);
    expect(ops).toContain('FastGelu');
    expect(ops).toContain('MatMulInteger');
    expect(ops).toContain('ConvInteger');
    expect(ops).not.toContain('Erf');
    const x = Float32Array.from({ length: 8 * 16 }, (_, i) => Math.sin(i * 1.3) * 2);
    const [reference, approximate] = await Promise.all([run(bytes, x), run(fast, x)]);
    let error = 0;
    let norm = 0;
    for (let i = 0; i < reference.length; i++) {
      error += (reference[i] - approximate[i]) ** 2;
      norm += reference[i] ** 2;
    }
    expect(Math.sqrt(error / norm)).toBeLessThan(0.03);
  });

  it('leaves a graph alone where nothing matches', () => {
    const bytes = tinyModel();
    const { quantized, fastGelus } = quantizeModel(bytes, { matmul: null, fastGelu: false });
    expect(quantized).toEqual([]);
    expect(fastGelus).toBe(0);
  });
});
