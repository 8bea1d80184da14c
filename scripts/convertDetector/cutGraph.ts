/**
 * Cutting a TF.js detection graph before its preprocessing loop: TF's object detection API resizes
 * each image inside a while loop (TensorArray ops) that the converter does not map; the network
 * after it only needs the resized batch, so a fixed-size float input takes the loop's place.
 */
import type { TfjsGraphModelJson, TfNode } from './tfjsToOnnx';

/**
 * `model` with a float Placeholder `input` in place of the tensor `replaced`; `through` are extra
 * nodes between the input and the consumers of `replaced` (the last one feeds them), e.g. the
 * loop's normalisation.
 */
export function withFixedInput(
  model: TfjsGraphModelJson,
  replaced: string,
  input: { name: string; shape: readonly number[] },
  through: readonly TfNode[] = [],
): TfjsGraphModelJson {
  const placeholder: TfNode = {
    name: input.name,
    op: 'Placeholder',
    attr: { dtype: { type: 'DT_FLOAT' }, shape: { shape: { dim: input.shape.map((size) => ({ size })) } } },
  };
  const feed = through.length > 0 ? through[through.length - 1].name : input.name;
  let rewired = 0;
  const nodes = model.modelTopology.node.map((node) => {
    if (!node.input?.includes(replaced)) return node;
    rewired++;
    return { ...node, input: node.input.map((i) => (i === replaced ? feed : i)) };
  });
  if (rewired !== 1) throw new Error(`graph cut: expected one consumer of ${replaced}, found ${rewired}`);
  return { ...model, modelTopology: { ...model.modelTopology, node: [placeholder, ...through, ...nodes] } };
}
