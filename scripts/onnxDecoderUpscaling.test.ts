import { readFileSync } from 'node:fs';
import onnxProto from 'onnx-proto';
import { describe, expect, it } from 'vitest';
import { blockMatrix, tokenMajorUpscaling } from './onnxDecoderUpscaling.mjs';
import { splitDecoder } from './onnxDecoderSplit.mjs';

const { onnx } = onnxProto;

/** ConvTranspose, kernel 2, stride 2, no padding, as its definition reads: input [in, h, w] → [out, 2h, 2w]. */
function convTranspose(x: Float32Array, w: Float32Array, b: Float32Array, inputs: number, outputs: number, h: number, width: number) {
  const out = new Float32Array(outputs * 4 * h * width);
  for (let o = 0; o < outputs; o++) {
    for (let y = 0; y < 2 * h; y++) for (let xx = 0; xx < 2 * width; xx++) out[(o * 2 * h + y) * 2 * width + xx] = b[o];
  }
  for (let c = 0; c < inputs; c++) {
    for (let y = 0; y < h; y++) {
      for (let xx = 0; xx < width; xx++) {
        for (let o = 0; o < outputs; o++) {
          for (let i = 0; i < 2; i++) {
            for (let j = 0; j < 2; j++) out[(o * 2 * h + 2 * y + i) * 2 * width + 2 * xx + j] += x[(c * h + y) * width + xx] * w[((c * outputs + o) * 2 + i) * 2 + j];
          }
        }
      }
    }
  }
  return out;
}

describe('blockMatrix', () => {
  it('gives, per input pixel, the 2 × 2 block of every output channel that ConvTranspose writes', () => {
    const [inputs, outputs, h, width] = [3, 2, 2, 3];
    const values = (n: number, seed: number) => Float32Array.from({ length: n }, (_, k) => Math.sin(seed + k * 1.7));
    const x = values(inputs * h * width, 1);
    const w = values(inputs * outputs * 4, 2);
    const b = values(outputs, 3);
    const expected = convTranspose(x, w, b, inputs, outputs, h, width);
    const { matrix, bias } = blockMatrix(w, b, inputs, outputs);
    for (let y = 0; y < h; y++) {
      for (let xx = 0; xx < width; xx++) {
        // The pixel's row (channels last) times the matrix: column (2i + j)·out + o.
        for (let col = 0; col < 4 * outputs; col++) {
          let sum = bias[col];
          for (let c = 0; c < inputs; c++) sum += x[(c * h + y) * width + xx] * matrix[c * 4 * outputs + col];
          const [k, o] = [Math.floor(col / outputs), col % outputs];
          const [i, j] = [k >> 1, k & 1];
          expect(sum).toBeCloseTo(expected[(o * 2 * h + 2 * y + i) * 2 * width + 2 * xx + j], 5);
        }
      }
    }
  });
});

describe('tokenMajorUpscaling', () => {
  it('leaves the per-click decoder without ConvTranspose, Tile or the spelt-out LayerNorm2d, outputs unchanged', () => {
    const decoder = readFileSync('public/models/sam-decoder.onnx');
    const graph = onnx.ModelProto.decode(splitDecoder(decoder).perClick).graph!;
    const ops = graph.node!.map((n) => n.opType);
    expect(ops).not.toContain('ConvTranspose');
    expect(ops).not.toContain('Tile');
    expect(graph.node!.some((n) => n.name!.startsWith('/output_upscaling/'))).toBe(false);
    expect(graph.output!.map((o) => o.name)).toEqual(onnx.ModelProto.decode(decoder).graph!.output!.map((o) => o.name));
  });

  it('fails loudly on a graph without the mask head it rewrites', () => {
    const model = onnx.ModelProto.create({
      irVersion: 8,
      graph: onnx.GraphProto.create({ name: 'other', node: [onnx.NodeProto.create({ name: 'x', opType: 'Identity', input: ['a'], output: ['b'] })] }),
    });
    expect(() => tokenMajorUpscaling(onnx.ModelProto.encode(model).finish())).toThrow(/decoder graph changed/);
  });
});
