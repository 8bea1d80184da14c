/**
 * Int8 + FastGelu variants of the SAM encoder and decoder, where float matrix products and the erf
 * GELU are the bottleneck (most of all in WASM).
 *
 * Decoder: most of its arithmetic is in ten projections of the 64×64 image tokens (4096 × 256 × 128
 * each): the k/v projections of every token→image attention and the q/out projections of every
 * image→token attention. Only those are quantized; token-side layers, the prompt encoder and the mask
 * head stay float. Encoder: every MatMul with a weight initializer.
 *
 * Quantization is dynamic: weights per output channel to symmetric int8 here, activations to uint8 per
 * run by DynamicQuantizeLinear. onnxruntime fuses the pattern into DynamicQuantizeMatMul /
 * MatMulIntegerToFloat, whose integer kernels run about twice as fast as the float ones in WASM.
 */
import onnxProto from 'onnx-proto';
import { intAttribute } from './onnxGraph.mjs';

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

/** The float32 values of an initializer or a Constant's tensor (raw or repeated field). */
export function floatsOf(tensor) {
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
  const { bytes, quantized } = quantizeModel(modelBytes, { matmul: pattern });
  if (quantized.length === 0) {
    throw new QuantizationError('no image-side projection MatMul found; the decoder graph changed — update scripts/onnxQuantize.mjs');
  }
  return { bytes, quantized };
}

/** Symmetric per-row int8 (rows = a convolution's output channels): W[m, ·] ≈ q[m, ·] · scale[m]. */
export function quantizePerRow(weights, rows, cols) {
  const scale = new Float32Array(rows);
  const q = new Int8Array(rows * cols);
  for (let m = 0; m < rows; m++) {
    let max = 0;
    for (let k = 0; k < cols; k++) max = Math.max(max, Math.abs(weights[m * cols + k]));
    scale[m] = max > 0 ? max / 127 : 1;
    for (let k = 0; k < cols; k++) q[m * cols + k] = Math.max(-127, Math.min(127, Math.round(weights[m * cols + k] / scale[m])));
  }
  return { q, scale };
}

const castToFloat = (name, input, output) => onnx.NodeProto.create({ name, opType: 'Cast', input: [input], output: [output], attribute: [intAttribute('to', T.FLOAT)] });

/** The float values of an initializer or a Constant node's output, by tensor name; undefined when neither. */
export function constantValue(graph, name) {
  const init = graph.initializer.find((t) => t.name === name);
  if (init) return floatsOf(init);
  const node = graph.node.find((n) => n.opType === 'Constant' && n.output[0] === name);
  const value = node?.attribute.find((a) => a.name === 'value')?.t;
  return value ? floatsOf(value) : undefined;
}

/**
 * Finds x·½·(1 + erf(x/√2)) as exported by PyTorch (Div → Erf → Add → Mul(x) → Mul ½, or the ½
 * applied to x first) and returns, per match, the input x, the output and the nodes it replaces.
 */
function findErfGelus(graph) {
  const producer = new Map();
  const consumers = new Map();
  for (const node of graph.node) {
    for (const out of node.output) producer.set(out, node);
    for (const input of node.input) consumers.set(input, [...(consumers.get(input) ?? []), node]);
  }
  const only = (name) => (consumers.get(name)?.length === 1 ? consumers.get(name)[0] : undefined);
  const near = (value, target) => value !== undefined && value.length === 1 && Math.abs(value[0] - target) < 1e-3;
  const matches = [];
  for (const erf of graph.node) {
    if (erf.opType !== 'Erf') continue;
    const div = producer.get(erf.input[0]);
    if (div?.opType !== 'Div' || !near(constantValue(graph, div.input[1]), Math.SQRT2)) continue;
    const x = div.input[0];
    const add = only(erf.output[0]);
    if (add?.opType !== 'Add' || !near(constantValue(graph, add.input.find((i) => i !== erf.output[0])), 1)) continue;
    const mul = only(add.output[0]);
    if (mul?.opType !== 'Mul') continue;
    const other = mul.input.find((i) => i !== add.output[0]);
    if (other === x) {
      const half = only(mul.output[0]);
      if (half?.opType !== 'Mul' || !near(constantValue(graph, half.input.find((i) => i !== mul.output[0])), 0.5)) continue;
      matches.push({ x, output: half.output[0], nodes: [div, erf, add, mul, half] });
    } else {
      const half = producer.get(other);
      if (half?.opType !== 'Mul' || !half.input.includes(x) || !near(constantValue(graph, half.input.find((i) => i !== x)), 0.5)) continue;
      matches.push({ x, output: mul.output[0], nodes: [div, erf, add, mul, half] });
    }
  }
  return matches;
}

/**
 * Rewrites a float SAM graph for speed:
 * - `matmul`: MatMuls whose weights are 2-D initializers matching the pattern get per-column int8
 *   weights and per-run uint8 activations (DynamicQuantizeLinear → MatMulInteger, which onnxruntime
 *   fuses into its integer GEMM);
 * - `conv`: non-grouped convolutions with at least `convMinInputs` input channels get per-output-channel
 *   int8 weights the same way (ConvInteger, zero points 0, scales applied after);
 * - `fastGelu`: the exact erf GELU becomes com.microsoft FastGelu (the tanh approximation, one kernel
 *   instead of five, and no erf, which is slow in WASM);
 * @returns {{ bytes: Uint8Array, quantized: string[], fastGelus: number }}
 */
export function quantizeModel(modelBytes, { matmul = /./, conv = false, convMinInputs = 32, fastGelu = false } = {}) {
  const model = onnx.ModelProto.decode(modelBytes);
  const graph = model.graph;
  if (!graph) throw new QuantizationError('the model has no graph');
  const initializers = new Map(graph.initializer.map((t) => [t.name, t]));
  const nodes = [];
  const quantizedInputs = new Map();
  const quantized = [];
  const quantizeInput = (input, base) => {
    let xq = quantizedInputs.get(input);
    if (!xq) {
      xq = { q: `${base}_Xq`, scale: `${base}_Xs`, zeroPoint: `${base}_Xzp` };
      nodes.push(onnx.NodeProto.create({ name: `${base}_DQL`, opType: 'DynamicQuantizeLinear', input: [input], output: [xq.q, xq.scale, xq.zeroPoint] }));
      quantizedInputs.set(input, xq);
    }
    return xq;
  };
  const addInt8 = (name, dims, q) => graph.initializer.push(onnx.TensorProto.create({ name, dims, dataType: T.INT8, rawData: new Uint8Array(q.buffer, q.byteOffset, q.byteLength) }));
  const addFloat = (name, dims, f) => graph.initializer.push(onnx.TensorProto.create({ name, dims, dataType: T.FLOAT, rawData: new Uint8Array(f.buffer, f.byteOffset, f.byteLength) }));
  for (const node of graph.node) {
    const weights = initializers.get(node.input[1]);
    const base = node.name.replace(/[^A-Za-z0-9_]/g, '_');
    if (node.opType === 'MatMul' && matmul && weights?.dims.length === 2 && matmul.test(node.name)) {
      const [rows, cols] = weights.dims.map(Number);
      const { q, scale } = quantizePerColumn(floatsOf(weights), rows, cols);
      addInt8(`${base}_Wq`, [rows, cols], q);
      addInt8(`${base}_Wzp`, [cols], new Int8Array(cols));
      addFloat(`${base}_Ws`, [cols], scale);
      const xq = quantizeInput(node.input[0], base);
      nodes.push(
        onnx.NodeProto.create({ name: `${base}_MMI`, opType: 'MatMulInteger', input: [xq.q, `${base}_Wq`, xq.zeroPoint, `${base}_Wzp`], output: [`${base}_Yi`] }),
        castToFloat(`${base}_Cast`, `${base}_Yi`, `${base}_Yf`),
        onnx.NodeProto.create({ name: `${base}_Scale`, opType: 'Mul', input: [xq.scale, `${base}_Ws`], output: [`${base}_S`] }),
        onnx.NodeProto.create({ name: `${base}_Mul`, opType: 'Mul', input: [`${base}_Yf`, `${base}_S`], output: [node.output[0]] }),
      );
      quantized.push(node.name);
      continue;
    }
    const group = Number(node.attribute.find((a) => a.name === 'group')?.i ?? 1);
    if (node.opType === 'Conv' && conv && weights?.dims.length === 4 && group === 1 && Number(weights.dims[1]) >= convMinInputs) {
      const dims = weights.dims.map(Number);
      const [outputs] = dims;
      const { q, scale } = quantizePerRow(floatsOf(weights), outputs, dims[1] * dims[2] * dims[3]);
      addInt8(`${base}_Wq`, dims, q);
      // ConvInteger takes one weight zero point; symmetric weights make it 0 for every channel.
      addInt8(`${base}_Wzp`, [], new Int8Array(1));
      addFloat(`${base}_Ws`, [outputs, 1, 1], scale);
      const xq = quantizeInput(node.input[0], base);
      const out = node.input[2] ? `${base}_Yc` : node.output[0];
      nodes.push(
        onnx.NodeProto.create({ name: `${base}_CI`, opType: 'ConvInteger', input: [xq.q, `${base}_Wq`, xq.zeroPoint, `${base}_Wzp`], output: [`${base}_Yi`], attribute: node.attribute }),
        castToFloat(`${base}_Cast`, `${base}_Yi`, `${base}_Yf`),
        onnx.NodeProto.create({ name: `${base}_Scale`, opType: 'Mul', input: [xq.scale, `${base}_Ws`], output: [`${base}_S`] }),
        onnx.NodeProto.create({ name: `${base}_Mul`, opType: 'Mul', input: [`${base}_Yf`, `${base}_S`], output: [out] }),
      );
      if (node.input[2]) {
        const bias = initializers.get(node.input[2]);
        addFloat(`${base}_B`, [outputs, 1, 1], floatsOf(bias));
        nodes.push(onnx.NodeProto.create({ name: `${base}_Bias`, opType: 'Add', input: [out, `${base}_B`], output: [node.output[0]] }));
      }
      quantized.push(node.name);
      continue;
    }
    nodes.push(node);
  }
  graph.node = nodes;
  let fastGelus = 0;
  if (fastGelu) {
    const matches = findErfGelus(graph);
    const position = new Map(graph.node.map((n, i) => [n, i]));
    const replaced = new Map();
    for (const match of matches) {
      const replacement = onnx.NodeProto.create({ name: `${match.nodes[1].name}_FastGelu`, opType: 'FastGelu', domain: 'com.microsoft', input: [match.x], output: [match.output] });
      // The replacement takes the place of the last of its nodes: after x, before every consumer.
      const last = match.nodes.reduce((a, b) => (position.get(a) > position.get(b) ? a : b));
      for (const n of match.nodes) replaced.set(n, n === last ? replacement : null);
    }
    graph.node = graph.node.flatMap((n) => (replaced.has(n) ? (replaced.get(n) ? [replaced.get(n)] : []) : [n]));
    fastGelus = matches.length;
    if (fastGelus > 0 && !model.opsetImport.some((o) => o.domain === 'com.microsoft')) {
      model.opsetImport.push(onnx.OperatorSetIdProto.create({ domain: 'com.microsoft', version: 1 }));
    }
  }
  const used = new Set(graph.node.flatMap((n) => n.input));
  // Constants that only fed the replaced nodes would make onnxruntime warn once per constant.
  graph.node = graph.node.filter((n) => n.opType !== 'Constant' || used.has(n.output[0]));
  graph.initializer = graph.initializer.filter((t) => used.has(t.name));
  return { bytes: onnx.ModelProto.encode(model).finish(), quantized, fastGelus };
}
