/**
 * Converts a float TFLite model into ONNX for the ops of MediaPipe's SSD detectors: CONV_2D,
 * DEPTHWISE_CONV_2D, ADD, RESHAPE, CONCATENATION and DEQUANTIZE (float16 weights).
 *
 * Each TFLite operator is restated as the TF op it was converted from (Conv2D with its bias and
 * fused activation, DepthwiseConv2dNative, AddV2, Reshape, ConcatV2), with the constants in TF's
 * layouts, and handed to the TF.js → ONNX converter (tfjsToOnnx.ts). That converter already does
 * what TFLite's NHWC graph needs in ONNX: NCHW convolution chains with transposes only where a
 * reshape needs TF's order, and TF's SAME/VALID padding as explicit pads (TFLite computes SAME
 * padding exactly as TF does). DEQUANTIZE of a constant is folded here: float16 → float32 weights.
 *
 * Anything else (a CUSTOM post-processing op, a quantized tensor) fails loudly with its name.
 */
import { convertTfjsGraphModel, float16ToFloat32, transposeData, type ConstData, type ConvertResult, type TfjsGraphModelJson, type TfNode } from './tfjsToOnnx';
import { FUSED_ACTIVATION, readTfliteModel, TfliteOp, TfliteType, type TfliteModel, type TfliteOperator, type TfliteTensor } from './tflite';

const OP_NAMES: Record<number, string> = Object.fromEntries(Object.entries(TfliteOp).map(([name, code]) => [code, name]));

/** The TFLite graph restated as a TF.js graph model (float32 and int32 weights). */
export interface TfGraphOfTflite {
  readonly model: TfjsGraphModelJson;
  readonly weights: Uint8Array;
  /** TF node names of the TFLite graph's inputs and outputs (their TFLite tensor names). */
  readonly inputNames: readonly string[];
  readonly outputNames: readonly string[];
}

const base64 = (text: string): string => Buffer.from(text, 'utf8').toString('base64');

/** A TF node name for the tensor: its TFLite name, made unique and free of TF's ':' output separator. */
function nodeNames(model: TfliteModel): string[] {
  const seen = new Set<string>();
  return model.tensors.map((t) => {
    let name = t.name.replaceAll(':', '_');
    if (seen.has(name)) name = `${name}__${t.index}`;
    seen.add(name);
    return name;
  });
}

function constantOf(tensor: TfliteTensor): ConstData {
  const bytes = tensor.data!;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const shape = [...tensor.shape];
  switch (tensor.type) {
    case TfliteType.FLOAT32:
      return { dtype: 'float32', shape, data: Float32Array.from({ length: bytes.byteLength / 4 }, (_, i) => view.getFloat32(i * 4, true)) };
    case TfliteType.FLOAT16:
      return { dtype: 'float32', shape, data: Float32Array.from({ length: bytes.byteLength / 2 }, (_, i) => float16ToFloat32(view.getUint16(i * 2, true))) };
    case TfliteType.INT32:
      return { dtype: 'int32', shape, data: Int32Array.from({ length: bytes.byteLength / 4 }, (_, i) => view.getInt32(i * 4, true)) };
    default:
      throw new Error(`constant ${tensor.name}: unsupported TFLite tensor type ${tensor.type}`);
  }
}

/** Restates the TFLite graph as TF nodes; constants (float16 ones dequantized) become weights. */
export function tfliteToTfGraph(bytes: Uint8Array): TfGraphOfTflite {
  const model = readTfliteModel(bytes);
  const names = nodeNames(model);
  const nodes: TfNode[] = [];
  const constants = new Map<string, ConstData>();
  const addConst = (name: string, c: ConstData): string => {
    constants.set(name, c);
    nodes.push({ name, op: 'Const' });
    return name;
  };

  for (const index of model.inputs) {
    const t = model.tensors[index];
    if (t.type !== TfliteType.FLOAT32) throw new Error(`input ${t.name}: only float32 inputs are supported`);
    nodes.push({
      name: names[index],
      op: 'Placeholder',
      attr: { dtype: { type: 'DT_FLOAT' }, shape: { shape: { dim: t.shape.map((size) => ({ size })) } } },
    });
  }
  // Constants read by a non-DEQUANTIZE op are TF constants as they are (float16 ones only through DEQUANTIZE).
  const dequantized = new Set(model.operators.filter((op) => op.opcode === TfliteOp.DEQUANTIZE).map((op) => op.inputs[0]));
  model.tensors.forEach((t) => {
    if (t.data && !dequantized.has(t.index)) addConst(names[t.index], constantOf(t));
  });

  const constOf = (index: number, what: string): ConstData => {
    const c = constants.get(names[index]);
    if (!c) throw new Error(`${what} (${model.tensors[index].name}) must be a constant`);
    return c;
  };
  /**
   * The TF name of the op's own node: the tensor's name, unless a fused activation follows as its own
   * node, which then takes the tensor's name (so graph outputs keep their TFLite names).
   */
  const linearName = (op: TfliteOperator, name: string): string => {
    const code = op.options.activation ?? 0;
    if (!(code in FUSED_ACTIVATION)) throw new Error(`${name}: unsupported fused activation ${code}`);
    return FUSED_ACTIVATION[code] ? `${name}/linear` : name;
  };
  const addActivation = (op: TfliteOperator, name: string): void => {
    const activation = FUSED_ACTIVATION[op.options.activation ?? 0];
    if (activation) nodes.push({ name, op: activation, input: [`${name}/linear`] });
  };
  const input = (index: number): string => names[index];

  model.operators.forEach((op, opIndex) => {
    const out = op.outputs[0];
    const name = names[out];
    const where = `operator ${opIndex} (${OP_NAMES[op.opcode] ?? `builtin ${op.opcode}`}${op.customCode ? ` "${op.customCode}"` : ''})`;
    switch (op.opcode) {
      case TfliteOp.DEQUANTIZE: {
        const source = model.tensors[op.inputs[0]];
        if (!source.data || source.type !== TfliteType.FLOAT16) throw new Error(`${where}: only float16 constants are dequantized`);
        addConst(name, constantOf(source));
        return;
      }
      case TfliteOp.CONV_2D:
      case TfliteOp.DEPTHWISE_CONV_2D: {
        const depthwise = op.opcode === TfliteOp.DEPTHWISE_CONV_2D;
        const filter = constOf(op.inputs[1], `${where} filter`);
        const [a, kh, kw, d] = filter.shape;
        // TFLite: [out, kh, kw, in] or [1, kh, kw, in × multiplier]; TF: [kh, kw, in, out] or [kh, kw, in, multiplier].
        const multiplier = op.options.depthMultiplier || 1;
        const tfFilter = depthwise ? { ...filter, shape: [kh, kw, d / multiplier, multiplier] } : transposeData(filter, [1, 2, 3, 0]);
        if (depthwise && a !== 1) throw new Error(`${where}: depthwise filter [${filter.shape}] has a leading ${a}`);
        const filterName = addConst(`${name}/filter`, tfFilter);
        const hasBias = op.inputs.length > 2 && op.inputs[2] >= 0;
        const { strideH = 1, strideW = 1, dilationH = 1, dilationW = 1, padding = 'SAME' } = op.options;
        nodes.push({
          name: linearName(op, name),
          op: depthwise ? 'FusedDepthwiseConv2dNative' : '_FusedConv2D',
          input: [input(op.inputs[0]), filterName, ...(hasBias ? [input(op.inputs[2])] : [])],
          attr: {
            strides: { list: { i: [1, strideH, strideW, 1] } },
            dilations: { list: { i: [1, dilationH, dilationW, 1] } },
            padding: { s: base64(padding) },
            data_format: { s: base64('NHWC') },
            fused_ops: { list: { s: hasBias ? [base64('BiasAdd')] : [] } },
          },
        });
        addActivation(op, name);
        return;
      }
      case TfliteOp.ADD:
        nodes.push({ name: linearName(op, name), op: 'AddV2', input: [input(op.inputs[0]), input(op.inputs[1])] });
        addActivation(op, name);
        return;
      case TfliteOp.CONCATENATION: {
        const axis = addConst(`${name}/axis`, { dtype: 'int32', shape: [], data: Int32Array.of(op.options.axis ?? 0) });
        nodes.push({ name: linearName(op, name), op: 'ConcatV2', input: [...op.inputs.map(input), axis] });
        addActivation(op, name);
        return;
      }
      case TfliteOp.RESHAPE: {
        // The target shape is the output tensor's (static here); the options or the shape input only restate it.
        const shape = model.tensors[out].shape;
        const target = addConst(`${name}/shape`, { dtype: 'int32', shape: [shape.length], data: Int32Array.from(shape) });
        nodes.push({ name, op: 'Reshape', input: [input(op.inputs[0]), target] });
        return;
      }
      default:
        throw new Error(`${where}: not supported by this converter (cut the graph before it)`);
    }
  });

  // Weights: one shard, float32 / int32, in node order.
  const specs = [...constants].map(([name, c]) => ({ name, shape: [...c.shape], dtype: c.dtype }));
  const weights = new Uint8Array(Buffer.concat([...constants.values()].map((c) => Buffer.from(c.data.buffer, c.data.byteOffset, c.data.byteLength))));
  return {
    model: { format: 'graph-model', modelTopology: { node: nodes }, weightsManifest: [{ paths: ['weights.bin'], weights: specs }] },
    weights,
    inputNames: model.inputs.map((i) => names[i]),
    outputNames: model.outputs.map(input),
  };
}

export interface TfliteConvertOptions {
  /** TFLite tensor names to expose; default: the graph's outputs. */
  readonly outputs?: readonly string[];
  readonly docString?: string;
  readonly metadata?: Record<string, string>;
}

/** The TFLite model as ONNX: inputs and outputs keep their TFLite names and NHWC/TFLite shapes. */
export function convertTfliteModel(bytes: Uint8Array, options: TfliteConvertOptions = {}): ConvertResult {
  const graph = tfliteToTfGraph(bytes);
  return convertTfjsGraphModel(graph.model, graph.weights, {
    outputs: options.outputs ?? graph.outputNames,
    docString: options.docString,
    metadata: options.metadata,
  });
}
