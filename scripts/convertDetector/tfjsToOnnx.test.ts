import * as ort from 'onnxruntime-node';
import { describe, expect, it } from 'vitest';
import { convertTfjsGraphModel, decodeWeights, type TfjsGraphModelJson } from './tfjsToOnnx';

const f16 = (values: number[]): Uint8Array => {
  // Hand-encoded IEEE half floats: 1.0 = 0x3c00, -2.0 = 0xc000, 0.5 = 0x3800, 65504 = 0x7bff.
  const table: Record<number, number> = { 1: 0x3c00, [-2]: 0xc000, 0.5: 0x3800, 65504: 0x7bff };
  const out = new Uint8Array(values.length * 2);
  values.forEach((v, i) => new DataView(out.buffer).setUint16(i * 2, table[v], true));
  return out;
};

/** input [1,4,4,2] → 1×1 conv (float16 weights) + bias, Relu6 → mean over H,W → reshape [1,3]. */
function tinyModel(): { model: TfjsGraphModelJson; weights: Uint8Array } {
  const attr = (o: Record<string, unknown>) => o as never;
  const model: TfjsGraphModelJson = {
    format: 'graph-model',
    modelTopology: {
      node: [
        { name: 'x', op: 'Placeholder', attr: attr({ shape: { shape: { dim: [{ size: 1 }, { size: 4 }, { size: 4 }, { size: 2 }] } }, dtype: { type: 'DT_FLOAT' } }) },
        { name: 'w', op: 'Const' },
        { name: 'b', op: 'Const' },
        { name: 'axes', op: 'Const' },
        { name: 'shape', op: 'Const' },
        {
          name: 'conv', op: '_FusedConv2D', input: ['x', 'w', 'b'],
          attr: attr({
            strides: { list: { i: ['1', '1', '1', '1'] } }, padding: { s: btoa('SAME') }, data_format: { s: btoa('NHWC') },
            fused_ops: { list: { s: [btoa('BiasAdd')] } }, dilations: { list: { i: ['1', '1', '1', '1'] } },
          }),
        },
        { name: 'act', op: 'Relu6', input: ['conv'] },
        { name: 'mean', op: 'Mean', input: ['act', 'axes'], attr: attr({ keep_dims: { b: false } }) },
        { name: 'out', op: 'Reshape', input: ['mean', 'shape'] },
      ],
    },
    weightsManifest: [
      {
        paths: ['w.bin'],
        weights: [
          { name: 'w', shape: [1, 1, 2, 3], dtype: 'float32', quantization: { dtype: 'float16', original_dtype: 'float32' } },
          { name: 'b', shape: [3], dtype: 'float32' },
          { name: 'axes', shape: [2], dtype: 'int32' },
          { name: 'shape', shape: [2], dtype: 'int32' },
        ],
      },
    ],
    signature: { outputs: { out: { name: 'out' } } },
  };
  const bias = new Uint8Array(Float32Array.of(0, 1, -100).buffer as ArrayBuffer);
  const axes = new Uint8Array(Int32Array.of(1, 2).buffer as ArrayBuffer);
  const shape = new Uint8Array(Int32Array.of(1, 3).buffer as ArrayBuffer);
  const weights = new Uint8Array([...f16([1, -2, 0.5, 1, 1, 65504]), ...bias, ...axes, ...shape]);
  return { model, weights };
}

describe('tfjs-to-onnx', () => {
  it('decodes float16-quantized weights exactly', () => {
    const { model, weights } = tinyModel();
    expect(Array.from(decodeWeights(model, weights).get('w')!.data as Float32Array)).toEqual([1, -2, 0.5, 1, 1, 65504]);
  });

  it('converts a small graph that onnxruntime runs with the TF semantics', async () => {
    const { model, weights } = tinyModel();
    const { onnx, outputs } = convertTfjsGraphModel(model, weights);
    expect(outputs).toEqual([{ name: 'out', dataType: 1, dims: [1, 3] }]);
    const session = await ort.InferenceSession.create(onnx);
    // Every pixel is (1, 2); filter rows are input channels [1, -2, 0.5] and [1, 1, 65504], bias [0, 1, -100]:
    // outputs 1 + 2 = 3, -2 + 2 + 1 = 1, 0.5 + 131008 - 100 → clipped to 6 by Relu6; the mean keeps them.
    const input = new Float32Array(32).map((_, i) => (i % 2 === 0 ? 1 : 2));
    const result = await session.run({ x: new ort.Tensor('float32', input, [1, 4, 4, 2]) });
    expect(Array.from(result.out.data as Float32Array)).toEqual([3, 1, 6]);
    await session.release();
  });

  it('names an unsupported op', () => {
    const { model, weights } = tinyModel();
    model.modelTopology.node[6] = { name: 'act', op: 'Softplus', input: ['conv'] };
    expect(() => convertTfjsGraphModel(model, weights)).toThrow(/unsupported TF op Softplus \(node act\)/);
  });
});
