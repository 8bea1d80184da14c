/**
 * Reads a TFLite model (a FlatBuffer, schema tensorflow/lite/schema/schema.fbs) into plain objects:
 * tensors with their shapes, types and constant bytes, and operators with their builtin options.
 *
 * Only what the inference graphs we convert use is read; the FlatBuffer access is written out here
 * (tables, vtables, vectors, strings) so provisioning needs no FlatBuffers dependency.
 */

/** TFLite TensorType values. */
export const TfliteType = { FLOAT32: 0, FLOAT16: 1, INT32: 2, UINT8: 3, INT64: 4 } as const;

/** TFLite BuiltinOperator codes of the ops we convert (others are reported by their number). */
export const TfliteOp = {
  ADD: 0,
  CONCATENATION: 2,
  CONV_2D: 3,
  DEPTHWISE_CONV_2D: 4,
  DEQUANTIZE: 6,
  LOGISTIC: 14,
  RESHAPE: 22,
  CUSTOM: 32,
} as const;

/** TFLite ActivationFunctionType, as the TF op names the TF.js converter applies. */
export const FUSED_ACTIVATION: Record<number, string | undefined> = { 0: undefined, 1: 'Relu', 3: 'Relu6' };

export interface TfliteTensor {
  readonly index: number;
  readonly name: string;
  readonly shape: readonly number[];
  readonly type: number;
  /** The constant's little-endian bytes; undefined for activations. */
  readonly data?: Uint8Array;
}

export interface TfliteOperator {
  readonly opcode: number;
  /** The custom op's name when opcode is CUSTOM. */
  readonly customCode?: string;
  readonly inputs: readonly number[];
  readonly outputs: readonly number[];
  readonly options: TfliteOptions;
}

/** The builtin options of the ops we convert, by field; unset fields take the schema's defaults. */
export interface TfliteOptions {
  readonly padding?: 'SAME' | 'VALID';
  readonly strideW?: number;
  readonly strideH?: number;
  readonly dilationW?: number;
  readonly dilationH?: number;
  readonly depthMultiplier?: number;
  readonly activation?: number;
  readonly axis?: number;
  readonly newShape?: readonly number[];
}

export interface TfliteModel {
  readonly tensors: readonly TfliteTensor[];
  readonly operators: readonly TfliteOperator[];
  readonly inputs: readonly number[];
  readonly outputs: readonly number[];
}

/** Minimal FlatBuffer table access over one buffer. */
class FlatBuffer {
  private readonly view: DataView;
  constructor(readonly bytes: Uint8Array) {
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  root(): number {
    return this.view.getUint32(0, true);
  }

  /** Absolute position of field `id` of the table at `table`, or 0 when absent. */
  private field(table: number, id: number): number {
    const vtable = table - this.view.getInt32(table, true);
    const vtableSize = this.view.getUint16(vtable, true);
    const slot = 4 + id * 2;
    if (slot >= vtableSize) return 0;
    const offset = this.view.getUint16(vtable + slot, true);
    return offset ? table + offset : 0;
  }

  private indirect(at: number): number {
    return at + this.view.getUint32(at, true);
  }

  uint8(table: number, id: number, fallback = 0): number {
    const at = this.field(table, id);
    return at ? this.view.getUint8(at) : fallback;
  }

  int32(table: number, id: number, fallback = 0): number {
    const at = this.field(table, id);
    return at ? this.view.getInt32(at, true) : fallback;
  }

  table(table: number, id: number): number {
    const at = this.field(table, id);
    return at ? this.indirect(at) : 0;
  }

  string(table: number, id: number): string | undefined {
    const at = this.field(table, id);
    if (!at) return undefined;
    const start = this.indirect(at);
    const length = this.view.getUint32(start, true);
    return new TextDecoder().decode(this.bytes.subarray(start + 4, start + 4 + length));
  }

  /** Start and length of a vector field (elements follow the length word). */
  private vector(table: number, id: number): { start: number; length: number } {
    const at = this.field(table, id);
    if (!at) return { start: 0, length: 0 };
    const start = this.indirect(at);
    return { start: start + 4, length: this.view.getUint32(start, true) };
  }

  int32s(table: number, id: number): number[] {
    const { start, length } = this.vector(table, id);
    return Array.from({ length }, (_, i) => this.view.getInt32(start + i * 4, true));
  }

  bytesOf(table: number, id: number): Uint8Array | undefined {
    const { start, length } = this.vector(table, id);
    return length ? this.bytes.subarray(start, start + length) : undefined;
  }

  tables(table: number, id: number): number[] {
    const { start, length } = this.vector(table, id);
    return Array.from({ length }, (_, i) => this.indirect(start + i * 4));
  }
}

const FILE_IDENTIFIER = 'TFL3';

function readOptions(fb: FlatBuffer, opcode: number, options: number): TfliteOptions {
  if (!options) return {};
  const padding = (id: number): 'SAME' | 'VALID' => (fb.uint8(options, id) === 0 ? 'SAME' : 'VALID');
  switch (opcode) {
    case TfliteOp.CONV_2D:
      return {
        padding: padding(0),
        strideW: fb.int32(options, 1),
        strideH: fb.int32(options, 2),
        activation: fb.uint8(options, 3),
        dilationW: fb.int32(options, 4, 1),
        dilationH: fb.int32(options, 5, 1),
      };
    case TfliteOp.DEPTHWISE_CONV_2D:
      return {
        padding: padding(0),
        strideW: fb.int32(options, 1),
        strideH: fb.int32(options, 2),
        depthMultiplier: fb.int32(options, 3),
        activation: fb.uint8(options, 4),
        dilationW: fb.int32(options, 5, 1),
        dilationH: fb.int32(options, 6, 1),
      };
    case TfliteOp.ADD:
      return { activation: fb.uint8(options, 0) };
    case TfliteOp.CONCATENATION:
      return { axis: fb.int32(options, 0), activation: fb.uint8(options, 1) };
    case TfliteOp.RESHAPE:
      return { newShape: fb.int32s(options, 0) };
    default:
      return {};
  }
}

/** Parses the model's first subgraph. */
export function readTfliteModel(bytes: Uint8Array): TfliteModel {
  const identifier = new TextDecoder().decode(bytes.subarray(4, 8));
  if (identifier !== FILE_IDENTIFIER) throw new Error(`not a TFLite model (file identifier "${identifier}", expected "${FILE_IDENTIFIER}")`);
  const fb = new FlatBuffer(bytes);
  const model = fb.root();
  const opcodes = fb.tables(model, 1).map((code) => ({
    // builtin_code (field 3) supersedes the deprecated int8 field 0 from schema version 3a on.
    builtin: Math.max(fb.uint8(code, 0), fb.int32(code, 3)),
    custom: fb.string(code, 1),
  }));
  const buffers = fb.tables(model, 4).map((buffer) => {
    // Models over 2 GB keep their buffers after the FlatBuffer (offset, size): not met here.
    if (fb.int32(buffer, 1)) throw new Error('TFLite buffers stored outside the FlatBuffer are not supported');
    return fb.bytesOf(buffer, 0);
  });
  const subgraphs = fb.tables(model, 2);
  if (subgraphs.length !== 1) throw new Error(`expected one subgraph, found ${subgraphs.length}`);
  const graph = subgraphs[0];
  const tensors = fb.tables(graph, 0).map((tensor, index) => ({
    index,
    shape: fb.int32s(tensor, 0),
    type: fb.uint8(tensor, 1),
    data: buffers[fb.int32(tensor, 2)],
    name: fb.string(tensor, 3) ?? `tensor_${index}`,
  }));
  const operators = fb.tables(graph, 3).map((op) => {
    const code = opcodes[fb.int32(op, 0)];
    return {
      opcode: code.builtin,
      customCode: code.custom,
      inputs: fb.int32s(op, 1),
      outputs: fb.int32s(op, 2),
      options: readOptions(fb, code.builtin, fb.table(op, 4)),
    };
  });
  return { tensors, operators, inputs: fb.int32s(graph, 1), outputs: fb.int32s(graph, 2) };
}
