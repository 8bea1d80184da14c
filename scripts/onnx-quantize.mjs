/**
 * An int8 variant of the SAM decoder for the browser, where WASM float matrix products are the
 * bottleneck of every click.
 *
 * Most of the decoder's arithmetic is in ten projections of the 64×64 image tokens (4096 × 256 × 128
 * each): the k/v projections of every token→image attention and the q/out projections of every
 * image→token attention. Only those are quantized, dynamically: weights per output column to
 * symmetric int8 here, activations to uint8 per run by DynamicQuantizeLinear. onnxruntime fuses the
 * pattern into DynamicQuantizeMatMul / MatMulIntegerToFloat, whose integer kernels run about twice as
 * fast as the float ones in WASM. Token-side layers, the prompt encoder and the mask head stay float.
 */
import onnxProto from 'onnx-proto';

const { onnx } = onnxProto;
const T = onnx.TensorProto.DataType;

export const IMAGE_SIDE_PROJECTIONS =
  /(cross_attn_token_to_image|final_attn_token_to_image)\/(k_proj|v_proj)\/MatMul$|cross_attn_image_to_token\/(q_proj|out_proj)\/MatMul$/;

export class QuantizationError extends Error {
  constructor(message) {
    super(message);
    this.name = 'QuantizationError';
  }
}

function floatsOf(tensor) {
  if (tensor.dataType !== T.FLOAT) throw new QuantizationError(`initializer ${tensor.name} is not float32`);
  if (tensor.rawData && tensor.rawData.length > 0) {
    const copy = new Uint8Array(tensor.rawData); // aligned copy
    return new Float32Array(copy.buffer, 0, copy.length / 4);
  }
  return Float32Array.from(tensor.floatData);
}

/** Symmetric per-column int8: W[k, n] ≈ q[k, n] · scale[n]. */
export function quantizePerColumn(weights, rows, cols) {
  const scale = new Float32Array(cols);
  for (let n = 0; n < cols; n++) {
    let max = 0;
    for (let k = 0; k < rows; k++) max = Math.max(max, Math.abs(weights[k * cols + n]));
    scale[n] = max > 0 ? max / 127 : 1;
  }
  const q = new Int8Array(rows * cols);
  for (let k = 0; k < rows; k++) {
    for (let n = 0; n < cols; n++) q[k * cols + n] = Math.max(-127, Math.min(127, Math.round(weights[k * cols + n] / scale[n])));
  }
  return { q, scale };
}

/**
 * @param {Uint8Array} modelBytes a decoder graph (derived and pruned) @param {RegExp} [pattern]
 * @returns {{ bytes: Uint8Array, quantized: string[] }}
 */
export function quantizeDecoderProjections(modelBytes, pattern = IMAGE_SIDE_PROJECTIONS) {
  const model = onnx.ModelProto.decode(modelBytes);
  const graph = model.graph;
  if (!graph) throw new QuantizationError('the model has no graph');
  const initializers = new Map(graph.initializer.map((t) => [t.name, t]));
  const nodes = [];
  const quantizedInputs = new Map();
  const quantized = [];
  for (const node of graph.node) {
    const weights = node.opType === 'MatMul' ? initializers.get(node.input[1]) : undefined;
    if (!weights || !pattern.test(node.name) || weights.dims.length !== 2) {
      nodes.push(node);
      continue;
    }
    const [rows, cols] = weights.dims.map(Number);
    const { q, scale } = quantizePerColumn(floatsOf(weights), rows, cols);
    const base = node.name.replace(/[^A-Za-z0-9_]/g, '_');
    graph.initializer.push(
      onnx.TensorProto.create({ name: `${base}_Wq`, dims: [rows, cols], dataType: T.INT8, rawData: new Uint8Array(q.buffer) }),
      onnx.TensorProto.create({ name: `${base}_Wzp`, dims: [cols], dataType: T.INT8, rawData: new Uint8Array(cols) }),
      onnx.TensorProto.create({ name: `${base}_Ws`, dims: [cols], dataType: T.FLOAT, rawData: new Uint8Array(scale.buffer) }),
    );
    const input = node.input[0];
    let xq = quantizedInputs.get(input);
    if (!xq) {
      xq = { q: `${base}_Xq`, scale: `${base}_Xs`, zeroPoint: `${base}_Xzp` };
      nodes.push(onnx.NodeProto.create({ name: `${base}_DQL`, opType: 'DynamicQuantizeLinear', input: [input], output: [xq.q, xq.scale, xq.zeroPoint] }));
      quantizedInputs.set(input, xq);
    }
    nodes.push(
      onnx.NodeProto.create({ name: `${base}_MMI`, opType: 'MatMulInteger', input: [xq.q, `${base}_Wq`, xq.zeroPoint, `${base}_Wzp`], output: [`${base}_Yi`] }),
      onnx.NodeProto.create({
        name: `${base}_Cast`,
        opType: 'Cast',
        input: [`${base}_Yi`],
        output: [`${base}_Yf`],
        attribute: [onnx.AttributeProto.create({ name: 'to', type: onnx.AttributeProto.AttributeType.INT, i: T.FLOAT })],
      }),
      onnx.NodeProto.create({ name: `${base}_Scale`, opType: 'Mul', input: [xq.scale, `${base}_Ws`], output: [`${base}_S`] }),
      onnx.NodeProto.create({ name: `${base}_Mul`, opType: 'Mul', input: [`${base}_Yf`, `${base}_S`], output: [node.output[0]] }),
    );
    quantized.push(node.name);
  }
  if (quantized.length === 0) {
    throw new QuantizationError('no image-side projection MatMul found; the decoder graph changed — update scripts/onnx-quantize.mjs');
  }
  graph.node = nodes;
  const used = new Set(graph.node.flatMap((n) => n.input));
  graph.initializer = graph.initializer.filter((t) => used.has(t.name));
  return { bytes: onnx.ModelProto.encode(model).finish(), quantized };
}
