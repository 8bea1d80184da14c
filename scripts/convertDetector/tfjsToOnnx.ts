/**
 * Converts a TensorFlow.js graph model (model.json + weight shards) into an ONNX model, node by node.
 *
 * TF graphs are NHWC; ONNX convolutions are NCHW. Every value keeps its TF (logical) shape and
 * records the physical layout it is stored in: convolution chains stay NCHW and a Transpose is
 * inserted only where a layout-sensitive op (Reshape, Slice, TopK, Gather...) needs TF's order,
 * and at the graph's outputs, so outputs have exactly the TF shapes. Constants that broadcast
 * against NCHW tensors are permuted at conversion time instead.
 *
 * Only the ops met in the graphs we ship are mapped; anything else fails loudly with its name.
 */
import {
  encodeOnnxModel,
  OnnxType,
  type AttributeValue,
  type OnnxInitializer,
  type OnnxNode,
  type OnnxTypeCode,
  type OnnxValueInfo,
} from './onnxWriter';

// ---------- TF.js model.json types ----------

interface TfAttrValue {
  s?: string;
  i?: string | number;
  f?: number;
  b?: boolean;
  type?: string;
  list?: { i?: (string | number)[]; s?: string[]; f?: number[] };
  shape?: { dim?: { size: string | number }[]; unknownRank?: boolean };
  tensor?: unknown;
}
export interface TfNode {
  name: string;
  op: string;
  input?: string[];
  attr?: Record<string, TfAttrValue>;
}
interface TfWeightSpec {
  name: string;
  shape: number[];
  dtype: string;
  quantization?: { dtype: string; min?: number; scale?: number; original_dtype?: string };
}
export interface TfjsGraphModelJson {
  format?: string;
  modelTopology: { node: TfNode[] };
  weightsManifest: { paths: string[]; weights: TfWeightSpec[] }[];
  signature?: {
    inputs?: Record<string, { name: string }>;
    outputs?: Record<string, { name: string }>;
  };
}

// ---------- values ----------

type DType = 'float32' | 'int32' | 'int64' | 'bool';
type TypedData = Float32Array | Int32Array | BigInt64Array | Uint8Array;

export interface ConstData {
  readonly dtype: DType;
  readonly shape: readonly number[];
  readonly data: TypedData;
}

interface Value {
  /** TF (NHWC) shape. */
  readonly shape: readonly number[];
  readonly dtype: DType;
  /** Physical layout of a rank-4 value; other ranks are always stored as in TF. */
  readonly layout: 'nhwc' | 'nchw';
  /** ONNX tensor name, unless the value is a not-yet-materialized constant. */
  readonly name?: string;
  readonly constant?: ConstData;
}

const ONNX_TYPE_OF: Record<DType, OnnxTypeCode> = {
  float32: OnnxType.FLOAT,
  int32: OnnxType.INT32,
  int64: OnnxType.INT64,
  bool: OnnxType.BOOL,
};

const TF_DTYPE: Record<string, DType> = {
  DT_FLOAT: 'float32',
  DT_INT32: 'int32',
  DT_INT64: 'int64',
  DT_BOOL: 'bool',
};

const NHWC_TO_NCHW = [0, 3, 1, 2];
const NCHW_TO_NHWC = [0, 2, 3, 1];
/** Where TF axis i of a rank-4 tensor lives in NCHW. */
const NCHW_AXIS_OF_NHWC_AXIS = [0, 2, 3, 1];

// ---------- weights ----------

export function float16ToFloat32(h: number): number {
  const sign = h & 0x8000 ? -1 : 1;
  const exponent = (h >> 10) & 0x1f;
  const fraction = h & 0x03ff;
  if (exponent === 0) return sign * 2 ** -14 * (fraction / 1024);
  if (exponent === 0x1f) return fraction ? NaN : sign * Infinity;
  return sign * 2 ** (exponent - 15) * (1 + fraction / 1024);
}

const BYTES_PER_ELEMENT: Record<string, number> = {
  float32: 4,
  int32: 4,
  bool: 1,
  float16: 2,
  uint8: 1,
  uint16: 2,
};

/** Decodes the concatenated weight shards, undoing TF.js weight quantization (float16, uint8/uint16 affine). */
export function decodeWeights(model: TfjsGraphModelJson, weightBytes: Uint8Array): Map<string, ConstData> {
  const out = new Map<string, ConstData>();
  const view = new DataView(weightBytes.buffer, weightBytes.byteOffset, weightBytes.byteLength);
  let offset = 0;
  for (const group of model.weightsManifest) {
    for (const spec of group.weights) {
      const size = spec.shape.reduce((a, b) => a * b, 1);
      const storedType = spec.quantization?.dtype ?? spec.dtype;
      const width = BYTES_PER_ELEMENT[storedType];
      if (width === undefined) throw new Error(`weight ${spec.name}: unsupported stored dtype ${storedType}`);
      let data: TypedData;
      const dtype: DType = spec.dtype === 'float32' ? 'float32' : spec.dtype === 'int32' ? 'int32' : 'bool';
      if (spec.quantization) {
        const q = spec.quantization;
        const f = new Float32Array(size);
        for (let i = 0; i < size; i++) {
          const at = offset + i * width;
          if (q.dtype === 'float16') f[i] = float16ToFloat32(view.getUint16(at, true));
          else {
            const raw = q.dtype === 'uint8' ? view.getUint8(at) : view.getUint16(at, true);
            f[i] = raw * (q.scale ?? 1) + (q.min ?? 0);
          }
        }
        data = dtype === 'int32' ? Int32Array.from(f, Math.round) : f;
      } else if (dtype === 'float32') {
        data = new Float32Array(size);
        for (let i = 0; i < size; i++) data[i] = view.getFloat32(offset + i * 4, true);
      } else if (dtype === 'int32') {
        data = new Int32Array(size);
        for (let i = 0; i < size; i++) data[i] = view.getInt32(offset + i * 4, true);
      } else {
        data = weightBytes.slice(offset, offset + size);
      }
      offset += size * width;
      out.set(spec.name, { dtype, shape: spec.shape, data });
    }
  }
  if (offset !== weightBytes.byteLength) {
    throw new Error(`weights manifest covers ${offset} bytes but the shards hold ${weightBytes.byteLength}`);
  }
  return out;
}

// ---------- helpers ----------

function decodeString(attr: TfAttrValue | undefined): string | undefined {
  return attr?.s === undefined ? undefined : Buffer.from(attr.s, 'base64').toString('utf8');
}
function intList(attr: TfAttrValue | undefined): number[] {
  return (attr?.list?.i ?? []).map(Number);
}
function numberOf(attr: TfAttrValue | undefined, fallback: number): number {
  return attr?.i === undefined ? fallback : Number(attr.i);
}

function permute(shape: readonly number[], perm: readonly number[]): number[] {
  return perm.map((p) => shape[p]);
}

export function transposeData(c: ConstData, perm: readonly number[]): ConstData {
  const shape = permute(c.shape, perm);
  const size = shape.reduce((a, b) => a * b, 1);
  const srcStrides = stridesOf(c.shape);
  const dstStrides = stridesOf(shape);
  const Ctor = c.data.constructor as { new (n: number): TypedData };
  const data = new Ctor(size);
  const idx = new Array<number>(shape.length).fill(0);
  for (let flat = 0; flat < size; flat++) {
    let rem = flat;
    let src = 0;
    for (let d = 0; d < shape.length; d++) {
      idx[d] = Math.floor(rem / dstStrides[d]);
      rem -= idx[d] * dstStrides[d];
      src += idx[d] * srcStrides[perm[d]];
    }
    (data as Float32Array)[flat] = (c.data as Float32Array)[src];
  }
  return { dtype: c.dtype, shape, data };
}

function stridesOf(shape: readonly number[]): number[] {
  const strides = new Array<number>(shape.length).fill(1);
  for (let i = shape.length - 2; i >= 0; i--) strides[i] = strides[i + 1] * shape[i + 1];
  return strides;
}

function broadcastShapes(a: readonly number[], b: readonly number[]): number[] {
  const rank = Math.max(a.length, b.length);
  const out: number[] = [];
  for (let i = 0; i < rank; i++) {
    const da = a[a.length - rank + i] ?? 1;
    const db = b[b.length - rank + i] ?? 1;
    if (da !== db && da !== 1 && db !== 1) throw new Error(`cannot broadcast [${a}] with [${b}]`);
    out.push(Math.max(da, db));
  }
  return out;
}

function toBytes(data: TypedData): Uint8Array {
  return new Uint8Array(data.buffer, data.byteOffset, data.byteLength).slice();
}

/** TF 'SAME'/'VALID' padding as explicit ONNX pads for one spatial axis. */
function spatialPadding(
  padding: string,
  input: number,
  kernel: number,
  stride: number,
  dilation: number,
): { before: number; after: number; output: number } {
  const effectiveKernel = (kernel - 1) * dilation + 1;
  if (padding === 'VALID') return { before: 0, after: 0, output: Math.ceil((input - effectiveKernel + 1) / stride) };
  if (padding !== 'SAME') throw new Error(`unsupported padding ${padding}`);
  const output = Math.ceil(input / stride);
  const total = Math.max((output - 1) * stride + effectiveKernel - input, 0);
  const before = Math.floor(total / 2);
  return { before, after: total - before, output };
}

// ---------- the converter ----------

export interface ConvertOptions {
  /** TF node names to expose as outputs; default: the signature's outputs. */
  readonly outputs?: readonly string[];
  readonly opset?: number;
  readonly docString?: string;
  readonly metadata?: Record<string, string>;
}

export interface ConvertResult {
  readonly onnx: Uint8Array;
  readonly inputs: readonly OnnxValueInfo[];
  readonly outputs: readonly OnnxValueInfo[];
  /** TF op → count, for the conversion report. */
  readonly opCounts: Record<string, number>;
}

class GraphBuilder {
  readonly nodes: OnnxNode[] = [];
  readonly initializers: OnnxInitializer[] = [];
  private counter = 0;
  private readonly layoutCache = new Map<string, string>();

  unique(hint: string): string {
    return `${hint}__${this.counter++}`;
  }

  node(opType: string, inputs: readonly string[], hint: string, attributes?: Record<string, AttributeValue>, outputCount = 1): string[] {
    const outputs = Array.from({ length: outputCount }, (_, i) => this.unique(`${hint}:${i}`));
    this.nodes.push({ opType, inputs, outputs, name: this.unique(hint), attributes });
    return outputs;
  }

  initializer(hint: string, c: ConstData): string {
    const name = this.unique(hint);
    this.initializers.push({ name, dataType: ONNX_TYPE_OF[c.dtype], dims: c.shape, rawData: toBytes(c.data) });
    return name;
  }

  int64s(hint: string, values: readonly number[], shape: readonly number[] = [values.length]): string {
    return this.initializer(hint, { dtype: 'int64', shape, data: BigInt64Array.from(values.map((v) => BigInt(v))) });
  }

  float(hint: string, value: number): string {
    return this.initializer(hint, { dtype: 'float32', shape: [], data: Float32Array.of(value) });
  }

  /** The value's ONNX name in TF's own layout. */
  nhwc(v: Value, hint: string): string {
    if (v.constant) return this.initializer(hint, v.constant);
    if (v.shape.length !== 4 || v.layout === 'nhwc') return v.name!;
    return this.cachedTranspose(v.name!, NCHW_TO_NHWC);
  }

  /** The rank-4 value's ONNX name in NCHW layout. */
  nchw(v: Value, hint: string): string {
    if (v.shape.length !== 4) throw new Error(`${hint}: NCHW needs rank 4, got [${v.shape}]`);
    if (v.constant) return this.initializer(hint, transposeData(v.constant, NHWC_TO_NCHW));
    if (v.layout === 'nchw') return v.name!;
    return this.cachedTranspose(v.name!, NHWC_TO_NCHW);
  }

  private cachedTranspose(name: string, perm: readonly number[]): string {
    const key = `${name}|${perm.join(',')}`;
    let out = this.layoutCache.get(key);
    if (!out) {
      [out] = this.node('Transpose', [name], `${name}/transpose`, { perm: { kind: 'ints', value: perm } });
      this.layoutCache.set(key, out);
    }
    return out;
  }
}

export function convertTfjsGraphModel(model: TfjsGraphModelJson, weightBytes: Uint8Array, options: ConvertOptions = {}): ConvertResult {
  const weights = decodeWeights(model, weightBytes);
  const byName = new Map(model.modelTopology.node.map((n) => [n.name, n]));
  const outputNames = options.outputs ?? Object.keys(model.signature?.outputs ?? {});
  if (outputNames.length === 0) throw new Error('no outputs requested and the model has no signature outputs');

  // Only the nodes the requested outputs depend on, in dependency order.
  const order: TfNode[] = [];
  const state = new Map<string, 'visiting' | 'done'>();
  const visit = (name: string): void => {
    const node = byName.get(name);
    if (!node) throw new Error(`graph has no node ${name}`);
    if (state.get(name) === 'done') return;
    if (state.get(name) === 'visiting') throw new Error(`cycle at ${name}`);
    state.set(name, 'visiting');
    for (const input of node.input ?? []) if (!input.startsWith('^')) visit(refNode(input));
    state.set(name, 'done');
    order.push(node);
  };
  outputNames.forEach((n) => visit(refNode(n)));

  const b = new GraphBuilder();
  const values = new Map<string, Value>();
  const graphInputs: OnnxValueInfo[] = [];
  const opCounts: Record<string, number> = {};

  const get = (ref: string): Value => {
    const [node, index] = splitRef(ref);
    const v = values.get(`${node}:${index}`);
    if (!v) throw new Error(`value ${ref} not computed`);
    return v;
  };
  const constOf = (ref: string, what: string): ConstData => {
    const c = get(ref).constant;
    if (!c) throw new Error(`${what} must be a constant (${ref})`);
    return c;
  };
  const constInts = (ref: string, what: string): number[] => Array.from(constOf(ref, what).data as Int32Array, Number);

  for (const node of order) {
    opCounts[node.op] = (opCounts[node.op] ?? 0) + 1;
    const inputs = (node.input ?? []).filter((i) => !i.startsWith('^'));
    const attr = node.attr ?? {};
    const set = (v: Value, index = 0): void => void values.set(`${node.name}:${index}`, v);
    const hint = node.name;

    switch (node.op) {
      case 'Placeholder': {
        const shape = (attr.shape?.shape?.dim ?? []).map((d) => Number(d.size));
        if (shape.some((d) => d < 0)) throw new Error(`input ${node.name} has a dynamic shape [${shape}]; give it a fixed one`);
        const dtype = TF_DTYPE[attr.dtype?.type ?? 'DT_FLOAT'];
        graphInputs.push({ name: node.name, dataType: ONNX_TYPE_OF[dtype], dims: shape });
        set({ name: node.name, shape, dtype, layout: 'nhwc' });
        break;
      }
      case 'Const': {
        const c = weights.get(node.name);
        if (!c) throw new Error(`constant ${node.name} has no weight data`);
        set({ shape: c.shape, dtype: c.dtype, layout: 'nhwc', constant: c });
        break;
      }
      case 'Identity':
        set(get(inputs[0]));
        break;
      case 'Conv2D':
      case '_FusedConv2D':
      case 'DepthwiseConv2dNative':
      case 'FusedDepthwiseConv2dNative': {
        if (decodeString(attr.data_format) !== 'NHWC') throw new Error(`${hint}: only NHWC convolutions are supported`);
        const x = get(inputs[0]);
        const filter = constOf(inputs[1], `${hint} filter`);
        const depthwise = node.op.includes('Depthwise');
        const [kh, kw, cin, multiplierOrCout] = filter.shape;
        // TF: [kh, kw, in, out] or [kh, kw, in, multiplier]; ONNX: [out, in/group, kh, kw].
        const onnxFilter = depthwise
          ? { ...transposeData(filter, [2, 3, 0, 1]), shape: [cin * multiplierOrCout, 1, kh, kw] }
          : transposeData(filter, [3, 2, 0, 1]);
        const cout = depthwise ? cin * multiplierOrCout : multiplierOrCout;
        const strides = intList(attr.strides);
        const dilations = attr.dilations ? intList(attr.dilations) : [1, 1, 1, 1];
        const padding = decodeString(attr.padding) ?? 'VALID';
        const ph = spatialPadding(padding, x.shape[1], kh, strides[1], dilations[1]);
        const pw = spatialPadding(padding, x.shape[2], kw, strides[2], dilations[2]);
        const fused = (attr.fused_ops?.list?.s ?? []).map((s) => Buffer.from(s, 'base64').toString('utf8'));
        const convInputs = [b.nchw(x, hint), b.initializer(`${hint}/W`, onnxFilter)];
        const rest = [...fused];
        if (rest[0] === 'BiasAdd') {
          convInputs.push(b.initializer(`${hint}/B`, constOf(inputs[2], `${hint} bias`)));
          rest.shift();
        } else if (rest.length > 0) {
          throw new Error(`${hint}: unsupported fused ops ${fused.join(',')}`);
        }
        let [y] = b.node('Conv', convInputs, hint, {
          kernel_shape: { kind: 'ints', value: [kh, kw] },
          strides: { kind: 'ints', value: [strides[1], strides[2]] },
          dilations: { kind: 'ints', value: [dilations[1], dilations[2]] },
          pads: { kind: 'ints', value: [ph.before, pw.before, ph.after, pw.after] },
          group: { kind: 'int', value: depthwise ? cin : 1 },
        });
        for (const activation of rest) y = applyActivation(b, activation, y, hint, attr);
        set({ name: y, shape: [x.shape[0], ph.output, pw.output, cout], dtype: 'float32', layout: 'nchw' });
        break;
      }
      case 'BiasAdd':
      case 'Add':
      case 'AddV2':
      case 'Sub':
      case 'Mul':
      case 'RealDiv':
      case 'Maximum':
      case 'Minimum':
      case 'Equal':
      case 'Greater':
      case 'Less': {
        const onnxOp = {
          BiasAdd: 'Add', Add: 'Add', AddV2: 'Add', Sub: 'Sub', Mul: 'Mul', RealDiv: 'Div',
          Maximum: 'Max', Minimum: 'Min', Equal: 'Equal', Greater: 'Greater', Less: 'Less',
        }[node.op]!;
        const [a, c] = [get(inputs[0]), get(inputs[1])];
        const shape = broadcastShapes(a.shape, c.shape);
        const [na, nc, layout] = binaryOperands(b, a, c, hint);
        const [y] = b.node(onnxOp, [na, nc], hint);
        const dtype = ['Equal', 'Greater', 'Less'].includes(node.op) ? 'bool' : a.dtype;
        set({ name: y, shape, dtype, layout });
        break;
      }
      case 'AddN': {
        // Sums of N tensors (grappler's rewrite of chained residual adds): a chain of binary Adds.
        let acc = get(inputs[0]);
        for (let i = 1; i < inputs.length; i++) {
          const c = get(inputs[i]);
          const [na, nc, layout] = binaryOperands(b, acc, c, `${hint}/${i}`);
          const [y] = b.node('Add', [na, nc], `${hint}/${i}`);
          acc = { name: y, shape: broadcastShapes(acc.shape, c.shape), dtype: acc.dtype, layout };
        }
        set(acc);
        break;
      }
      case 'FusedBatchNorm':
      case 'FusedBatchNormV3': {
        const x = get(inputs[0]);
        const [scale, offset, mean, variance] = inputs.slice(1, 5).map((ref, i) => constOf(ref, `${hint} parameter ${i}`));
        const epsilon = attr.epsilon?.f ?? 1e-3;
        const [y] = b.node(
          'BatchNormalization',
          [b.nchw(x, hint), ...[scale, offset, mean, variance].map((c, i) => b.initializer(`${hint}/p${i}`, c))],
          hint,
          { epsilon: { kind: 'float', value: epsilon } },
        );
        set({ name: y, shape: x.shape, dtype: 'float32', layout: 'nchw' });
        break;
      }
      case 'Shape': {
        // Every shape here is static, so a Shape is a constant (it feeds the box predictors' reshapes).
        const x = get(inputs[0]);
        set({ shape: [x.shape.length], dtype: 'int32', layout: 'nhwc', constant: { dtype: 'int32', shape: [x.shape.length], data: Int32Array.from(x.shape) } });
        break;
      }
      case 'Pack': {
        const parts = inputs.map(get);
        if (!parts.every((p) => p.constant && p.shape.length === 0 && p.dtype === 'int32')) {
          throw new Error(`${hint}: only packs of constant int32 scalars are supported`);
        }
        const data = Int32Array.from(parts.map((p) => (p.constant!.data as Int32Array)[0]));
        set({ shape: [data.length], dtype: 'int32', layout: 'nhwc', constant: { dtype: 'int32', shape: [data.length], data } });
        break;
      }
      case 'FloorDiv':
      case 'FloorMod': {
        const [a, c] = [get(inputs[0]), get(inputs[1])];
        const shape = broadcastShapes(a.shape, c.shape);
        const [na, nc, layout] = binaryOperands(b, a, c, hint);
        let y: string;
        if (a.dtype === 'float32') {
          const [q] = b.node('Div', [na, nc], `${hint}/div`);
          const [fq] = b.node('Floor', [q], `${hint}/floor`);
          if (node.op === 'FloorDiv') y = fq;
          else {
            const [m] = b.node('Mul', [nc, fq], `${hint}/mul`);
            [y] = b.node('Sub', [na, m], hint);
          }
        } else {
          // ONNX integer Mod with fmod=0 takes the divisor's sign, like TF's FloorMod; then
          // a - floormod(a, b) is an exact multiple of b, so the (truncating) Div is exact floor division.
          const [m] = b.node('Mod', [na, nc], `${hint}/mod`, { fmod: { kind: 'int', value: 0 } });
          if (node.op === 'FloorMod') y = m;
          else {
            const [d] = b.node('Sub', [na, m], `${hint}/sub`);
            [y] = b.node('Div', [d, nc], hint);
          }
        }
        set({ name: y, shape, dtype: a.dtype, layout });
        break;
      }
      case 'Relu':
      case 'Relu6':
      case 'Sigmoid':
      case 'Tanh':
      case 'LeakyRelu':
      case 'Elu': {
        const x = get(inputs[0]);
        const name = x.shape.length === 4 && x.layout === 'nchw' ? x.name! : b.nhwc(x, hint);
        const y = applyActivation(b, node.op, name, hint, attr);
        set({ name: y, shape: x.shape, dtype: x.dtype, layout: x.shape.length === 4 ? x.layout : 'nhwc' });
        break;
      }
      case 'Cast': {
        const x = get(inputs[0]);
        const dtype = TF_DTYPE[attr.DstT?.type ?? ''];
        if (!dtype) throw new Error(`${hint}: unsupported cast target ${attr.DstT?.type}`);
        const name = x.constant ? b.nhwc(x, hint) : x.name!;
        const [y] = b.node('Cast', [name], hint, { to: { kind: 'int', value: ONNX_TYPE_OF[dtype] } });
        set({ name: y, shape: x.shape, dtype, layout: x.constant ? 'nhwc' : x.layout });
        break;
      }
      case 'Mean':
      case 'Max':
      case 'Sum': {
        const x = get(inputs[0]);
        const axes = constInts(inputs[1], `${hint} axes`).map((a) => (a < 0 ? a + x.shape.length : a));
        const keep = attr.keep_dims?.b ?? false;
        const useNchw = x.shape.length === 4 && x.layout === 'nchw' && keep;
        const onnxAxes = useNchw ? axes.map((a) => NCHW_AXIS_OF_NHWC_AXIS[a]) : axes;
        const onnxOp = { Mean: 'ReduceMean', Max: 'ReduceMax', Sum: 'ReduceSum' }[node.op]!;
        const [y] = b.node(onnxOp, [useNchw ? x.name! : b.nhwc(x, hint)], hint, {
          axes: { kind: 'ints', value: onnxAxes },
          keepdims: { kind: 'int', value: keep ? 1 : 0 },
        });
        const shape = keep ? x.shape.map((d, i) => (axes.includes(i) ? 1 : d)) : x.shape.filter((_, i) => !axes.includes(i));
        set({ name: y, shape, dtype: x.dtype, layout: useNchw ? 'nchw' : 'nhwc' });
        break;
      }
      case 'ConcatV2': {
        const parts = inputs.slice(0, -1).map(get);
        const rank = parts[0].shape.length;
        let axis = constInts(inputs[inputs.length - 1], `${hint} axis`)[0];
        if (axis < 0) axis += rank;
        const useNchw = rank === 4;
        const names = parts.map((p, i) => (useNchw ? b.nchw(p, `${hint}/in${i}`) : b.nhwc(p, `${hint}/in${i}`)));
        const [y] = b.node('Concat', names, hint, { axis: { kind: 'int', value: useNchw ? NCHW_AXIS_OF_NHWC_AXIS[axis] : axis } });
        const shape = [...parts[0].shape];
        shape[axis] = parts.reduce((sum, p) => sum + p.shape[axis], 0);
        set({ name: y, shape, dtype: parts[0].dtype, layout: useNchw ? 'nchw' : 'nhwc' });
        break;
      }
      case 'ResizeBilinear':
      case 'ResizeNearestNeighbor': {
        const x = get(inputs[0]);
        const [h, w] = constInts(inputs[1], `${hint} size`);
        const alignCorners = attr.align_corners?.b ?? false;
        const halfPixel = attr.half_pixel_centers?.b ?? false;
        const bilinear = node.op === 'ResizeBilinear';
        const coordinateMode = alignCorners
          ? 'align_corners'
          : halfPixel
            ? bilinear
              ? 'half_pixel'
              : 'tf_half_pixel_for_nn'
            : 'asymmetric';
        const attributes: Record<string, AttributeValue> = {
          mode: { kind: 'string', value: bilinear ? 'linear' : 'nearest' },
          coordinate_transformation_mode: { kind: 'string', value: coordinateMode },
        };
        if (!bilinear) attributes.nearest_mode = { kind: 'string', value: alignCorners ? 'round_prefer_ceil' : 'floor' };
        const sizes = b.int64s(`${hint}/sizes`, [x.shape[0], x.shape[3], h, w]);
        const [y] = b.node('Resize', [b.nchw(x, hint), '', '', sizes], hint, attributes);
        set({ name: y, shape: [x.shape[0], h, w, x.shape[3]], dtype: x.dtype, layout: 'nchw' });
        break;
      }
      case 'MaxPool':
      case 'AvgPool': {
        const x = get(inputs[0]);
        const k = intList(attr.ksize);
        const s = intList(attr.strides);
        const padding = decodeString(attr.padding) ?? 'VALID';
        const ph = spatialPadding(padding, x.shape[1], k[1], s[1], 1);
        const pw = spatialPadding(padding, x.shape[2], k[2], s[2], 1);
        const attributes: Record<string, AttributeValue> = {
          kernel_shape: { kind: 'ints', value: [k[1], k[2]] },
          strides: { kind: 'ints', value: [s[1], s[2]] },
          pads: { kind: 'ints', value: [ph.before, pw.before, ph.after, pw.after] },
        };
        // TF's SAME average pooling divides by the number of real (unpadded) cells.
        if (node.op === 'AvgPool') attributes.count_include_pad = { kind: 'int', value: 0 };
        const [y] = b.node(node.op, [b.nchw(x, hint)], hint, attributes);
        set({ name: y, shape: [x.shape[0], ph.output, pw.output, x.shape[3]], dtype: x.dtype, layout: 'nchw' });
        break;
      }
      case 'Pad': {
        // Zero padding; TF's paddings are [[before, after] per TF axis], ONNX's [all befores, all afters] in storage order.
        const x = get(inputs[0]);
        const paddings = constInts(inputs[1], `${hint} paddings`);
        const rank = x.shape.length;
        const storedAxisOf = (axis: number): number => (rank === 4 && x.layout === 'nchw' ? NCHW_AXIS_OF_NHWC_AXIS[axis] : axis);
        const pads = new Array<number>(2 * rank).fill(0);
        for (let axis = 0; axis < rank; axis++) {
          pads[storedAxisOf(axis)] = paddings[2 * axis];
          pads[rank + storedAxisOf(axis)] = paddings[2 * axis + 1];
        }
        const input = x.constant ? b.nhwc(x, hint) : x.name!;
        const [y] = b.node('Pad', [input, b.int64s(`${hint}/pads`, pads)], hint);
        const shape = x.shape.map((d, axis) => d + paddings[2 * axis] + paddings[2 * axis + 1]);
        set({ name: y, shape, dtype: x.dtype, layout: x.constant ? 'nhwc' : x.layout });
        break;
      }
      case 'Reshape': {
        const x = get(inputs[0]);
        const target = constInts(inputs[1], `${hint} shape`);
        const size = x.shape.reduce((a, c) => a * c, 1);
        const known = target.reduce((a, c, i) => (c === -1 ? a : a * (c === 0 ? x.shape[i] : c)), 1);
        const shape = target.map((d, i) => (d === -1 ? size / known : d === 0 ? x.shape[i] : d));
        const [y] = b.node('Reshape', [b.nhwc(x, hint), b.int64s(`${hint}/shape`, target)], hint);
        set({ name: y, shape, dtype: x.dtype, layout: 'nhwc' });
        break;
      }
      case 'ExpandDims': {
        const x = get(inputs[0]);
        let axis = constInts(inputs[1], `${hint} axis`)[0];
        if (axis < 0) axis += x.shape.length + 1;
        const [y] = b.node('Unsqueeze', [b.nhwc(x, hint), b.int64s(`${hint}/axes`, [axis])], hint);
        const shape = [...x.shape];
        shape.splice(axis, 0, 1);
        set({ name: y, shape, dtype: x.dtype, layout: 'nhwc' });
        break;
      }
      case 'StridedSlice': {
        const x = get(inputs[0]);
        const folded = foldScalarSlice(x, inputs, constInts, attr);
        if (folded) {
          set(folded);
          break;
        }
        const begin = constInts(inputs[1], `${hint} begin`);
        const end = constInts(inputs[2], `${hint} end`);
        const steps = constInts(inputs[3], `${hint} strides`);
        if (numberOf(attr.ellipsis_mask, 0) || numberOf(attr.new_axis_mask, 0)) {
          throw new Error(`${hint}: ellipsis/new-axis strided slices are not supported`);
        }
        const beginMask = numberOf(attr.begin_mask, 0);
        const endMask = numberOf(attr.end_mask, 0);
        const shrinkMask = numberOf(attr.shrink_axis_mask, 0);
        const starts: number[] = [];
        const ends: number[] = [];
        const shape: number[] = [];
        const shrunk: number[] = [];
        for (let axis = 0; axis < begin.length; axis++) {
          const dim = x.shape[axis];
          const step = steps[axis];
          if (step !== 1) throw new Error(`${hint}: only unit strides are supported`);
          const clamp = (v: number): number => Math.min(Math.max(v < 0 ? v + dim : v, 0), dim);
          let s = beginMask & (1 << axis) ? 0 : clamp(begin[axis]);
          let e = endMask & (1 << axis) ? dim : clamp(end[axis]);
          if (shrinkMask & (1 << axis)) {
            s = clamp(begin[axis]);
            e = s + 1;
            shrunk.push(axis);
          }
          starts.push(s);
          ends.push(e);
          shape.push(Math.max(e - s, 0));
        }
        for (let axis = begin.length; axis < x.shape.length; axis++) shape.push(x.shape[axis]);
        const axes = starts.map((_, i) => i);
        let [y] = b.node(
          'Slice',
          [b.nhwc(x, hint), b.int64s(`${hint}/starts`, starts), b.int64s(`${hint}/ends`, ends), b.int64s(`${hint}/axes`, axes)],
          hint,
        );
        if (shrunk.length) [y] = b.node('Squeeze', [y, b.int64s(`${hint}/squeeze`, shrunk)], `${hint}/squeeze`);
        set({ name: y, shape: shape.filter((_, i) => !shrunk.includes(i)), dtype: x.dtype, layout: 'nhwc' });
        break;
      }
      case 'TopKV2': {
        const x = get(inputs[0]);
        const k = constInts(inputs[1], `${hint} k`)[0];
        const [values, indices] = b.node('TopK', [b.nhwc(x, hint), b.int64s(`${hint}/k`, [k])], hint, {
          axis: { kind: 'int', value: -1 },
          largest: { kind: 'int', value: 1 },
          sorted: { kind: 'int', value: 1 },
        }, 2);
        // TF returns int32 indices; the graph's integer arithmetic downstream expects int32.
        const [indices32] = b.node('Cast', [indices], `${hint}/indices`, { to: { kind: 'int', value: OnnxType.INT32 } });
        const shape = [...x.shape.slice(0, -1), k];
        set({ name: values, shape, dtype: x.dtype, layout: 'nhwc' }, 0);
        set({ name: indices32, shape, dtype: 'int32', layout: 'nhwc' }, 1);
        break;
      }
      case 'GatherV2': {
        const params = get(inputs[0]);
        const indices = get(inputs[1]);
        let axis = constInts(inputs[2], `${hint} axis`)[0];
        if (numberOf(attr.batch_dims, 0) !== 0) throw new Error(`${hint}: batch_dims is not supported`);
        if (axis < 0) axis += params.shape.length;
        const [y] = b.node('Gather', [b.nhwc(params, `${hint}/params`), b.nhwc(indices, `${hint}/indices`)], hint, {
          axis: { kind: 'int', value: axis },
        });
        const shape = [...params.shape.slice(0, axis), ...indices.shape, ...params.shape.slice(axis + 1)];
        set({ name: y, shape, dtype: params.dtype, layout: 'nhwc' });
        break;
      }
      default:
        throw new Error(`unsupported TF op ${node.op} (node ${node.name})`);
    }
  }

  const graphOutputs: OnnxValueInfo[] = [];
  for (const ref of outputNames) {
    const v = get(ref);
    const name = refNode(ref);
    b.nodes.push({ opType: 'Identity', inputs: [b.nhwc(v, name)], outputs: [name], name: `${name}/output` });
    graphOutputs.push({ name, dataType: ONNX_TYPE_OF[v.dtype], dims: v.shape });
  }

  const onnx = encodeOnnxModel({
    graphName: 'converted_tfjs_graph',
    nodes: b.nodes,
    initializers: b.initializers,
    inputs: graphInputs,
    outputs: graphOutputs,
    opset: options.opset ?? 13,
    producer: 'maskwright tfjs-to-onnx',
    docString: options.docString,
    metadata: options.metadata,
  });
  return { onnx, inputs: graphInputs, outputs: graphOutputs, opCounts };
}

/** `shape[i]` of a constant int32 vector (the box predictors' dynamic batch size): folded to a scalar constant. */
function foldScalarSlice(
  x: Value,
  inputs: readonly string[],
  constInts: (ref: string, what: string) => number[],
  attr: Record<string, TfAttrValue>,
): Value | undefined {
  if (!x.constant || x.dtype !== 'int32' || x.shape.length !== 1 || numberOf(attr.shrink_axis_mask, 0) !== 1) return undefined;
  const begin = constInts(inputs[1], 'begin')[0];
  const index = begin < 0 ? begin + x.shape[0] : begin;
  const data = Int32Array.of((x.constant.data as Int32Array)[index]);
  return { shape: [], dtype: 'int32', layout: 'nhwc', constant: { dtype: 'int32', shape: [], data } };
}

function refNode(ref: string): string {
  return splitRef(ref)[0];
}
function splitRef(ref: string): [string, number] {
  const m = /^(.*):(\d+)$/.exec(ref);
  return m ? [m[1], Number(m[2])] : [ref, 0];
}

function applyActivation(b: GraphBuilder, op: string, x: string, hint: string, attr: Record<string, TfAttrValue>): string {
  switch (op) {
    case 'Relu':
    case 'Sigmoid':
    case 'Tanh':
    case 'Elu':
      return b.node(op, [x], `${hint}/${op}`)[0];
    case 'Relu6':
      return b.node('Clip', [x, b.float(`${hint}/min`, 0), b.float(`${hint}/max`, 6)], `${hint}/relu6`)[0];
    case 'LeakyRelu':
      return b.node('LeakyRelu', [x], `${hint}/leaky`, { alpha: { kind: 'float', value: attr.alpha?.f ?? 0.2 } })[0];
    default:
      throw new Error(`${hint}: unsupported activation ${op}`);
  }
}

/**
 * Names for the two operands of a broadcasting binary op, in a common layout.
 * A rank-4 NCHW operand keeps its layout; a constant partner is permuted to match (after padding
 * its shape to rank 4 the way NHWC broadcasting would); any other partner forces NHWC.
 */
function binaryOperands(b: GraphBuilder, a: Value, c: Value, hint: string): [string, string, 'nhwc' | 'nchw'] {
  const isNchw = (v: Value): boolean => !v.constant && v.shape.length === 4 && v.layout === 'nchw';
  const fits = (v: Value): boolean => v.shape.length === 4 || (v.constant !== undefined && v.shape.length <= 4);
  if ((isNchw(a) || isNchw(c)) && fits(a) && fits(c)) {
    return [toNchwOperand(b, a, `${hint}/a`), toNchwOperand(b, c, `${hint}/b`), 'nchw'];
  }
  return [b.nhwc(a, `${hint}/a`), b.nhwc(c, `${hint}/b`), 'nhwc'];
}

function toNchwOperand(b: GraphBuilder, v: Value, hint: string): string {
  if (v.shape.length === 4) return b.nchw(v, hint);
  const c = v.constant!;
  if (c.shape.length === 0) return b.initializer(hint, c);
  const padded = [...new Array<number>(4 - c.shape.length).fill(1), ...c.shape];
  return b.initializer(hint, transposeData({ ...c, shape: padded }, NHWC_TO_NCHW));
}
