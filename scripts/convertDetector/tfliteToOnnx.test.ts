import { Builder } from 'flatbuffers';
import * as ort from 'onnxruntime-node';
import { describe, expect, it } from 'vitest';
import { TfliteOp, TfliteType } from './tflite';
import { createTfliteInterpreter } from './tfliteRuntime';
import { convertTfliteModel } from './tfliteToOnnx';

/**
 * Small TFLite models written here (tensorflow/lite/schema/schema.fbs field numbers), each op in the
 * configurations MediaPipe's SSD does not all exercise — VALID padding, a stride-2 even kernel whose
 * SAME padding is one-sided, a depth multiplier, fused activations on ADD, a broadcast constant —
 * run on TFLite's own interpreter and on our ONNX.
 */

interface TensorSpec {
  readonly name: string;
  readonly shape: readonly number[];
  readonly type?: number;
  readonly data?: Uint8Array;
}
interface OperatorSpec {
  readonly opcode: number;
  readonly inputs: readonly number[];
  readonly outputs: readonly number[];
  /** BuiltinOptions union member and its table. */
  readonly options?: { type: number; write: (b: Builder) => number };
}

/** BuiltinOptions union members used here. */
const OPTIONS = { Conv2D: 1, DepthwiseConv2D: 2, Concatenation: 10, Add: 11 } as const;
const ACTIVATION = { NONE: 0, RELU: 1, RELU6: 3 } as const;
const PADDING = { SAME: 0, VALID: 1 } as const;

function int32Vector(b: Builder, values: readonly number[]): number {
  b.startVector(4, values.length, 4);
  for (let i = values.length - 1; i >= 0; i--) b.addInt32(values[i]);
  return b.endVector();
}
function offsetVector(b: Builder, offsets: readonly number[]): number {
  b.startVector(4, offsets.length, 4);
  for (let i = offsets.length - 1; i >= 0; i--) b.addOffset(offsets[i]);
  return b.endVector();
}
function table(b: Builder, fields: number, write: () => void): number {
  b.startObject(fields);
  write();
  return b.endObject();
}

function buildTflite(tensors: readonly TensorSpec[], operators: readonly OperatorSpec[], inputs: readonly number[], outputs: readonly number[]): Uint8Array {
  const b = new Builder(4096);
  // Buffer 0 is TFLite's empty sentinel; each constant gets its own.
  const buffers = [table(b, 1, () => {})];
  const bufferOf = tensors.map((t) => {
    if (!t.data) return 0;
    const data = t.data;
    b.startVector(1, data.length, 16);
    for (let i = data.length - 1; i >= 0; i--) b.addInt8(data[i]);
    const vector = b.endVector();
    buffers.push(table(b, 1, () => b.addFieldOffset(0, vector, 0)));
    return buffers.length - 1;
  });
  const tensorTables = tensors.map((t, i) => {
    const name = b.createString(t.name);
    const shape = int32Vector(b, t.shape);
    return table(b, 4, () => {
      b.addFieldOffset(0, shape, 0);
      b.addFieldInt8(1, t.type ?? TfliteType.FLOAT32, null);
      b.addFieldInt32(2, bufferOf[i], null);
      b.addFieldOffset(3, name, 0);
    });
  });
  const opcodes = [...new Set(operators.map((o) => o.opcode))];
  const codeTables = opcodes.map((code) =>
    table(b, 4, () => {
      b.addFieldInt8(0, code, null);
      b.addFieldInt32(2, 1, null);
      b.addFieldInt32(3, code, null);
    }),
  );
  const operatorTables = operators.map((o) => {
    const ins = int32Vector(b, o.inputs);
    const outs = int32Vector(b, o.outputs);
    const options = o.options?.write(b);
    return table(b, 5, () => {
      b.addFieldInt32(0, opcodes.indexOf(o.opcode), null);
      b.addFieldOffset(1, ins, 0);
      b.addFieldOffset(2, outs, 0);
      if (o.options) {
        b.addFieldInt8(3, o.options.type, null);
        b.addFieldOffset(4, options!, 0);
      }
    });
  });
  const tensorsVector = offsetVector(b, tensorTables);
  const inputsVector = int32Vector(b, inputs);
  const outputsVector = int32Vector(b, outputs);
  const operatorsVector = offsetVector(b, operatorTables);
  const graphName = b.createString('main');
  const graph = table(b, 5, () => {
    b.addFieldOffset(0, tensorsVector, 0);
    b.addFieldOffset(1, inputsVector, 0);
    b.addFieldOffset(2, outputsVector, 0);
    b.addFieldOffset(3, operatorsVector, 0);
    b.addFieldOffset(4, graphName, 0);
  });
  const codesVector = offsetVector(b, codeTables);
  const graphsVector = offsetVector(b, [graph]);
  const buffersVector = offsetVector(b, buffers);
  const model = table(b, 5, () => {
    b.addFieldInt32(0, 3, null);
    b.addFieldOffset(1, codesVector, 0);
    b.addFieldOffset(2, graphsVector, 0);
    b.addFieldOffset(4, buffersVector, 0);
  });
  b.finish(model, 'TFL3');
  return b.asUint8Array().slice();
}

/** Deterministic values in [-1, 1), multiples of 1/16: exact in float16 as in float32. */
function values(count: number, seed: number): number[] {
  return Array.from({ length: count }, (_, i) => (((i * 7 + seed * 13) % 32) - 16) / 16);
}
const float32Bytes = (v: readonly number[]): Uint8Array => new Uint8Array(Float32Array.from(v).buffer);
const int32Bytes = (v: readonly number[]): Uint8Array => new Uint8Array(Int32Array.from(v).buffer);
/** IEEE half floats of values that are exact in float16. */
function float16Bytes(v: readonly number[]): Uint8Array {
  const out = new DataView(new ArrayBuffer(v.length * 2));
  v.forEach((x, i) => {
    if (x === 0) return;
    const e = Math.floor(Math.log2(Math.abs(x)));
    const mantissa = Math.round((Math.abs(x) / 2 ** e - 1) * 1024);
    out.setUint16(i * 2, (x < 0 ? 0x8000 : 0) | ((e + 15) << 10) | mantissa, true);
  });
  return new Uint8Array(out.buffer);
}

function conv(padding: number, stride: number, activation: number) {
  return {
    type: OPTIONS.Conv2D,
    write: (b: Builder) =>
      table(b, 6, () => {
        b.addFieldInt8(0, padding, null);
        b.addFieldInt32(1, stride, null);
        b.addFieldInt32(2, stride, null);
        b.addFieldInt8(3, activation, null);
      }),
  };
}

/**
 * input [1,7,7,3] →
 *   A = CONV_2D(input, DEQUANTIZE(float16 filter [4,3,3,3]), bias) VALID, stride 2, RELU  → [1,3,3,4]
 *   B = DEPTHWISE_CONV_2D(input, [1,2,2,6], bias) SAME (one-sided pad), stride 2, ×2, RELU6 → [1,4,4,6]
 *   C = ADD(A, constant [4]) RELU6                                                     → [1,3,3,4]
 *   D = CONCATENATION(RESHAPE(B, [1,48,2]), RESHAPE(C, [1,18,2]), axis 1)               → [1,66,2]
 */
function testModel(extra?: OperatorSpec): Uint8Array {
  const tensors: TensorSpec[] = [
    { name: 'input', shape: [1, 7, 7, 3] }, // 0
    { name: 'filter_f16', shape: [4, 3, 3, 3], type: TfliteType.FLOAT16, data: float16Bytes(values(108, 1)) }, // 1
    { name: 'filter', shape: [4, 3, 3, 3] }, // 2
    { name: 'bias', shape: [4], data: float32Bytes([0.5, -0.25, 0, 1]) }, // 3
    { name: 'A', shape: [1, 3, 3, 4] }, // 4
    { name: 'dw_filter', shape: [1, 2, 2, 6], data: float32Bytes(values(24, 2)) }, // 5
    { name: 'dw_bias', shape: [6], data: float32Bytes([0, 0.5, -0.5, 1, 2, -1]) }, // 6
    { name: 'B', shape: [1, 4, 4, 6] }, // 7
    { name: 'offset', shape: [4], data: float32Bytes([3, -3, 0.5, 7]) }, // 8
    { name: 'C', shape: [1, 3, 3, 4] }, // 9
    { name: 'shape_b', shape: [3], type: TfliteType.INT32, data: int32Bytes([1, 48, 2]) }, // 10
    { name: 'B_flat', shape: [1, 48, 2] }, // 11
    { name: 'shape_c', shape: [3], type: TfliteType.INT32, data: int32Bytes([1, 18, 2]) }, // 12
    { name: 'C_flat', shape: [1, 18, 2] }, // 13
    { name: 'D', shape: [1, 66, 2] }, // 14
    { name: 'E', shape: [1, 3, 3, 4] }, // 15 (only with `extra`)
  ];
  const operators: OperatorSpec[] = [
    { opcode: TfliteOp.DEQUANTIZE, inputs: [1], outputs: [2] },
    { opcode: TfliteOp.CONV_2D, inputs: [0, 2, 3], outputs: [4], options: conv(PADDING.VALID, 2, ACTIVATION.RELU) },
    {
      opcode: TfliteOp.DEPTHWISE_CONV_2D,
      inputs: [0, 5, 6],
      outputs: [7],
      options: {
        type: OPTIONS.DepthwiseConv2D,
        write: (b) =>
          table(b, 7, () => {
            b.addFieldInt8(0, PADDING.SAME, null);
            b.addFieldInt32(1, 2, null);
            b.addFieldInt32(2, 2, null);
            b.addFieldInt32(3, 2, null);
            b.addFieldInt8(4, ACTIVATION.RELU6, null);
          }),
      },
    },
    { opcode: TfliteOp.ADD, inputs: [4, 8], outputs: [9], options: { type: OPTIONS.Add, write: (b) => table(b, 1, () => b.addFieldInt8(0, ACTIVATION.RELU6, null)) } },
    { opcode: TfliteOp.RESHAPE, inputs: [7, 10], outputs: [11] },
    { opcode: TfliteOp.RESHAPE, inputs: [9, 12], outputs: [13] },
    {
      opcode: TfliteOp.CONCATENATION,
      inputs: [11, 13],
      outputs: [14],
      options: { type: OPTIONS.Concatenation, write: (b) => table(b, 2, () => b.addFieldInt32(0, 1, null)) },
    },
    ...(extra ? [extra] : []),
  ];
  return buildTflite(tensors, operators, [0], extra ? [9, 14, 15] : [9, 14]);
}

describe('TFLite → ONNX conversion', () => {
  it('matches TFLite on VALID and one-sided SAME padding, stride 2, a depth multiplier, float16 weights, fused activations and reshapes', async () => {
    const model = testModel();
    const input = Float32Array.from(values(147, 3).map((v, i) => v * (1 + (i % 5))));
    const interpreter = await createTfliteInterpreter(model);
    const expected = interpreter.run(input);
    interpreter.release();
    const { onnx, outputs } = convertTfliteModel(model);
    expect(outputs.map((o) => [o.name, o.dims])).toEqual([
      ['C', [1, 3, 3, 4]],
      ['D', [1, 66, 2]],
    ]);
    const session = await ort.InferenceSession.create(onnx);
    const actual = await session.run({ input: new ort.Tensor('float32', input, [1, 7, 7, 3]) });
    await session.release();
    for (const name of ['C', 'D']) {
      const e = expected[name].data;
      const a = actual[name].data as Float32Array;
      expect(a.length, name).toBe(e.length);
      let worst = 0;
      for (let i = 0; i < e.length; i++) worst = Math.max(worst, Math.abs(a[i] - e[i]));
      expect(worst, name).toBeLessThan(1e-5);
      // Not vacuous: the activations (Relu6 last on both) clip some values and pass others.
      expect(Array.from(e).some((v) => v === 0 || v === 6), name).toBe(true);
      expect(Array.from(e).filter((v) => v > 0 && v < 6).length, name).toBeGreaterThan(5);
    }
  });

  it('names an op it does not convert, and where it stands', () => {
    const model = testModel({ opcode: TfliteOp.LOGISTIC, inputs: [9], outputs: [15] });
    expect(() => convertTfliteModel(model)).toThrow(/operator 7 \(LOGISTIC\): not supported/);
  });

  it('refuses a file that is not a TFLite model', () => {
    expect(() => convertTfliteModel(new Uint8Array(64))).toThrow(/not a TFLite model/);
  });
});
