/**
 * Rewrites the SAM decoder's mask head (output upscaling → masks) to work on rows of pixels with their
 * channels last, the layout the transformer already leaves the image tokens in.
 *
 * As exported, the head transposes the 4096 × 256 tokens to an image, upsamples it with two 2 × 2,
 * stride-2 ConvTransposes, normalises channels with a LayerNorm2d spelt out as nine element-wise ops over
 * the whole 64-channel 128 × 128 map, and multiplies by the four hypernetwork vectors. The same arithmetic,
 * channels last:
 * - a 2 × 2, stride-2 ConvTranspose lets every input pixel write its own 2 × 2 block, so it is one matrix
 *   product, pixels × (in channels) · (in channels) × (2·2·out channels), plus the bias; the four output
 *   pixels of each block stay next to their source row instead of being scattered;
 * - LayerNorm2d over channels becomes the one fused LayerNormalization over the last axis;
 * - the masks are one product of the upsampled rows with the four hypernetwork vectors, and only then,
 *   on 4 channels instead of 256, one transpose puts the pixels in image order.
 * Every output value is the same sum of the same products as before (float rounding aside).
 *
 * Assumes one prompt per run (batch 1), as the engine always feeds, and a 64 × 64 embedding.
 */
import onnxProto from 'onnx-proto';
import { floatAttribute, floatTensor, int64Tensor, intAttribute, intsAttribute, node } from './onnxGraph.mjs';
import { pruneToOutputs } from './onnxMultimask.mjs';
import { constantValue, floatsOf } from './onnxQuantize.mjs';

const { onnx } = onnxProto;

const UPSCALE = ['/output_upscaling/output_upscaling.0/ConvTranspose', '/output_upscaling/output_upscaling.3/ConvTranspose'];
const LAYER_NORM = '/output_upscaling/output_upscaling.1/';
const GRID = 64;

export class DecoderUpscalingError extends Error {
  constructor(message) {
    super(message);
    this.name = 'DecoderUpscalingError';
  }
}

const changed = (what) => new DecoderUpscalingError(`${what}; the decoder graph changed — update scripts/onnxDecoderUpscaling.mjs`);

/**
 * ConvTranspose weights [in, out, 2, 2] as a matrix [in, 4·out]: column (2i + j)·out + o holds the weight
 * that input channel c gives output channel o at offset (i, j) of the 2 × 2 block. The bias repeats per offset.
 */
export function blockMatrix(weights, bias, inputs, outputs) {
  const matrix = new Float32Array(inputs * 4 * outputs);
  for (let c = 0; c < inputs; c++) {
    for (let o = 0; o < outputs; o++) {
      for (let k = 0; k < 4; k++) matrix[c * 4 * outputs + k * outputs + o] = weights[(c * outputs + o) * 4 + k];
    }
  }
  const repeated = new Float32Array(4 * outputs);
  for (let k = 0; k < 4; k++) repeated.set(bias, k * outputs);
  return { matrix, bias: repeated };
}

/** The pieces of the exported head, located by name and checked by shape. */
function anatomy(graph) {
  const byName = new Map(graph.node.map((n) => [n.name, n]));
  const producer = new Map(graph.node.flatMap((n) => n.output.map((o) => [o, n])));
  const initializers = new Map(graph.initializer.map((t) => [t.name, t]));
  const convs = UPSCALE.map((name, i) => {
    const conv = byName.get(name);
    const weights = conv && initializers.get(conv.input[1]);
    const bias = conv && initializers.get(conv.input[2]);
    const expected = i === 0 ? '256x64x2x2' : '64x32x2x2';
    if (!weights || weights.dims.map(Number).join('x') !== expected || !bias) throw changed(`${name} with ${expected} weights and a bias not found`);
    const [inputs, outputs] = weights.dims.map(Number);
    return { conv, inputs, outputs, ...blockMatrix(floatsOf(weights), floatsOf(bias), inputs, outputs) };
  });
  // ConvTranspose ← Reshape (tokens → image) ← Transpose (rows → channels first) ← the image tokens.
  const toImage = producer.get(convs[0].conv.input[0]);
  const transpose = toImage?.opType === 'Reshape' ? producer.get(toImage.input[0]) : undefined;
  if (transpose?.opType !== 'Transpose') throw changed('the image tokens do not reach the upscaling through Transpose → Reshape');
  const tokens = transpose.input[0];
  const layerNormNode = (suffix, opType) => {
    const found = byName.get(`${LAYER_NORM}${suffix}`);
    if (found?.opType !== opType) throw changed(`${LAYER_NORM}${suffix} (${opType}) not found`);
    return found;
  };
  const scaleNode = layerNormNode('Mul', 'Mul');
  const shiftNode = layerNormNode('Add_1', 'Add');
  const epsilonNode = layerNormNode('Add', 'Add');
  const param = (n) => {
    const tensor = n.input.map((i) => initializers.get(i)).find((t) => t?.dims.map(Number).join('x') === '64x1x1');
    if (!tensor) throw changed(`${n.name} has no 64 × 1 × 1 parameter`);
    return floatsOf(tensor);
  };
  const epsilon = constantValue(graph, epsilonNode.input[1]);
  if (epsilon?.length !== 1) throw changed(`${epsilonNode.name}'s epsilon is not a float scalar`);
  // masks = hypernetwork vectors [1, 4, 32] · upscaled [1, 32, 65536], reshaped to [1, 4, 256, 256].
  const masksMatMul = byName.get('/MatMul_1');
  const masksOut = masksMatMul?.opType === 'MatMul' && graph.node.find((n) => n.opType === 'Reshape' && n.input[0] === masksMatMul.output[0]);
  if (!masksOut) throw changed('the masks product (/MatMul_1 → Reshape) not found');
  return { tokens, convs, scale: param(scaleNode), shift: param(shiftNode), epsilon: epsilon[0], hyper: masksMatMul.input[0], masksOut };
}

/** x·½·(1 + erf(x/√2)), spelt as PyTorch exports it, so onnxruntime fuses it (and onnxQuantize can swap it). */
function gelu(base, x, out) {
  return [
    node(`${base}/Div`, 'Div', [x, 'token_major/sqrt2'], [`${base}/scaled`]),
    node(`${base}/Erf`, 'Erf', [`${base}/scaled`], [`${base}/erf`]),
    node(`${base}/Add`, 'Add', [`${base}/erf`, 'token_major/one'], [`${base}/erf1`]),
    node(`${base}/Mul`, 'Mul', [x, `${base}/erf1`], [`${base}/xerf1`]),
    node(`${base}/Mul_1`, 'Mul', [`${base}/xerf1`, 'token_major/half'], [out]),
  ];
}

/**
 * @param {Uint8Array} modelBytes a float SAM decoder (or its per-click part) @returns {Uint8Array}
 */
export function tokenMajorUpscaling(modelBytes) {
  const model = onnx.ModelProto.decode(modelBytes);
  const graph = model.graph;
  if (!graph) throw changed('the model has no graph');
  const parts = anatomy(graph);
  const [up, down] = parts.convs;
  const pixels = GRID * GRID;
  graph.initializer.push(
    floatTensor('token_major/W1', [up.inputs, 4 * up.outputs], up.matrix),
    floatTensor('token_major/b1', [4 * up.outputs], up.bias),
    floatTensor('token_major/W2', [down.inputs, 4 * down.outputs], down.matrix),
    floatTensor('token_major/b2', [4 * down.outputs], down.bias),
    floatTensor('token_major/gamma', [up.outputs], parts.scale),
    floatTensor('token_major/beta', [up.outputs], parts.shift),
    floatTensor('token_major/sqrt2', [], Float32Array.of(Math.SQRT2)),
    floatTensor('token_major/one', [], Float32Array.of(1)),
    floatTensor('token_major/half', [], Float32Array.of(0.5)),
    int64Tensor('token_major/tokens_shape', [pixels, up.inputs]),
    int64Tensor('token_major/half_res_shape', [pixels * 4, up.outputs]),
    int64Tensor('token_major/full_res_shape', [pixels * 16, down.outputs]),
    int64Tensor('token_major/hyper_shape', [4, down.outputs]),
    int64Tensor('token_major/blocks_shape', [GRID, GRID, 2, 2, 2, 2, 4]),
    int64Tensor('token_major/masks_shape', [1, 4, GRID * 4, GRID * 4]),
  );
  const head = [
    node('token_major/tokens', 'Reshape', [parts.tokens, 'token_major/tokens_shape'], ['token_major/rows']),
    // Row p, column (2i + j)·64 + o: output channel o of pixel (2y + i, 2x + j) for token p = 64y + x.
    node('token_major/upscale_1', 'Gemm', ['token_major/rows', 'token_major/W1', 'token_major/b1'], ['token_major/blocks_1']),
    node('token_major/half_res', 'Reshape', ['token_major/blocks_1', 'token_major/half_res_shape'], ['token_major/half_res_rows']),
    node('token_major/norm', 'LayerNormalization', ['token_major/half_res_rows', 'token_major/gamma', 'token_major/beta'], ['token_major/normed'], [intAttribute('axis', -1), floatAttribute('epsilon', parts.epsilon)]),
    ...gelu('token_major/gelu_1', 'token_major/normed', 'token_major/activated_1'),
    node('token_major/upscale_2', 'Gemm', ['token_major/activated_1', 'token_major/W2', 'token_major/b2'], ['token_major/blocks_2']),
    ...gelu('token_major/gelu_2', 'token_major/blocks_2', 'token_major/activated_2'),
    node('token_major/full_res', 'Reshape', ['token_major/activated_2', 'token_major/full_res_shape'], ['token_major/full_res_rows']),
    node('token_major/hyper', 'Reshape', [parts.hyper, 'token_major/hyper_shape'], ['token_major/hyper_rows']),
    node('token_major/masks', 'Gemm', ['token_major/full_res_rows', 'token_major/hyper_rows'], ['token_major/mask_rows'], [intAttribute('transB', 1)]),
    // Rows are (y, x, i, j, k, l): pixel (4y + 2i + k, 4x + 2j + l) of each of the 4 masks.
    node('token_major/blocks', 'Reshape', ['token_major/mask_rows', 'token_major/blocks_shape'], ['token_major/mask_blocks']),
    node('token_major/image_order', 'Transpose', ['token_major/mask_blocks'], ['token_major/masks_ordered'], [intsAttribute('perm', [6, 0, 2, 4, 1, 3, 5])]),
    node('token_major/masks_image', 'Reshape', ['token_major/masks_ordered', 'token_major/masks_shape'], [parts.masksOut.output[0]]),
  ];
  // The head replaces the old masks Reshape, which comes after everything it reads; what only the
  // old head used is then dead.
  graph.node = graph.node.flatMap((n) => (n === parts.masksOut ? head : [n]));
  return pruneToOutputs(onnx.ModelProto.encode(model).finish(), graph.output.map((o) => o.name));
}
