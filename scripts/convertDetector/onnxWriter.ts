/**
 * A minimal ONNX protobuf writer: just the messages a converted inference graph needs.
 *
 * Written against onnx.proto (field numbers checked against onnx-proto's generated code) so that
 * provisioning needs only `protobufjs`, a runtime dependency, and not a dev-only ONNX package.
 */
import protobuf from 'protobufjs';

const ONNX_SUBSET_PROTO = `
syntax = "proto3";
package onnx;
message AttributeProto {
  string name = 1; float f = 2; int64 i = 3; bytes s = 4; TensorProto t = 5;
  repeated float floats = 7; repeated int64 ints = 8; int32 type = 20;
}
message ValueInfoProto { string name = 1; TypeProto type = 2; }
message NodeProto {
  repeated string input = 1; repeated string output = 2; string name = 3; string op_type = 4;
  repeated AttributeProto attribute = 5; string domain = 7;
}
message ModelProto {
  int64 ir_version = 1; string producer_name = 2; string producer_version = 3; string doc_string = 6;
  GraphProto graph = 7; repeated OperatorSetIdProto opset_import = 8; repeated StringStringEntryProto metadata_props = 14;
}
message StringStringEntryProto { string key = 1; string value = 2; }
message GraphProto {
  repeated NodeProto node = 1; string name = 2; repeated TensorProto initializer = 5;
  repeated ValueInfoProto input = 11; repeated ValueInfoProto output = 12;
}
message TensorProto { repeated int64 dims = 1; int32 data_type = 2; string name = 8; bytes raw_data = 9; }
message TensorShapeProto { message Dimension { int64 dim_value = 1; string dim_param = 2; } repeated Dimension dim = 1; }
message TypeProto { message Tensor { int32 elem_type = 1; TensorShapeProto shape = 2; } Tensor tensor_type = 1; }
message OperatorSetIdProto { string domain = 1; int64 version = 2; }
`;

/** ONNX TensorProto.DataType values. */
export const OnnxType = { FLOAT: 1, UINT8: 2, INT32: 6, INT64: 7, BOOL: 9 } as const;
export type OnnxTypeCode = (typeof OnnxType)[keyof typeof OnnxType];

export type AttributeValue =
  | { kind: 'int'; value: number }
  | { kind: 'float'; value: number }
  | { kind: 'string'; value: string }
  | { kind: 'ints'; value: readonly number[] }
  | { kind: 'floats'; value: readonly number[] };

export interface OnnxNode {
  readonly opType: string;
  readonly inputs: readonly string[];
  readonly outputs: readonly string[];
  readonly name: string;
  readonly attributes?: Record<string, AttributeValue>;
}

export interface OnnxInitializer {
  readonly name: string;
  readonly dataType: OnnxTypeCode;
  readonly dims: readonly number[];
  /** Little-endian element bytes. */
  readonly rawData: Uint8Array;
}

export interface OnnxValueInfo {
  readonly name: string;
  readonly dataType: OnnxTypeCode;
  readonly dims: readonly number[];
}

export interface OnnxModelSpec {
  readonly graphName: string;
  readonly nodes: readonly OnnxNode[];
  readonly initializers: readonly OnnxInitializer[];
  readonly inputs: readonly OnnxValueInfo[];
  readonly outputs: readonly OnnxValueInfo[];
  readonly opset: number;
  readonly producer: string;
  readonly docString?: string;
  readonly metadata?: Record<string, string>;
}

const ATTRIBUTE_TYPE = { float: 1, int: 2, string: 3, floats: 6, ints: 7 } as const;

let cachedRoot: protobuf.Root | undefined;
function onnxRoot(): protobuf.Root {
  cachedRoot ??= protobuf.parse(ONNX_SUBSET_PROTO, { keepCase: true }).root;
  return cachedRoot;
}

function encodeAttribute(name: string, attr: AttributeValue): Record<string, unknown> {
  const base = { name, type: ATTRIBUTE_TYPE[attr.kind] };
  switch (attr.kind) {
    case 'int':
      return { ...base, i: attr.value };
    case 'float':
      return { ...base, f: attr.value };
    case 'string':
      return { ...base, s: new TextEncoder().encode(attr.value) };
    case 'ints':
      return { ...base, ints: [...attr.value] };
    case 'floats':
      return { ...base, floats: [...attr.value] };
  }
}

function valueInfo(info: OnnxValueInfo): Record<string, unknown> {
  return {
    name: info.name,
    type: { tensor_type: { elem_type: info.dataType, shape: { dim: info.dims.map((d) => ({ dim_value: d })) } } },
  };
}

export function encodeOnnxModel(spec: OnnxModelSpec): Uint8Array {
  const ModelProto = onnxRoot().lookupType('onnx.ModelProto');
  const model = {
    ir_version: 8,
    producer_name: spec.producer,
    producer_version: '1',
    doc_string: spec.docString ?? '',
    opset_import: [{ domain: '', version: spec.opset }],
    metadata_props: Object.entries(spec.metadata ?? {}).map(([key, value]) => ({ key, value })),
    graph: {
      name: spec.graphName,
      node: spec.nodes.map((n) => ({
        name: n.name,
        op_type: n.opType,
        input: [...n.inputs],
        output: [...n.outputs],
        attribute: Object.entries(n.attributes ?? {}).map(([k, v]) => encodeAttribute(k, v)),
      })),
      initializer: spec.initializers.map((t) => ({
        name: t.name,
        data_type: t.dataType,
        dims: [...t.dims],
        raw_data: t.rawData,
      })),
      input: spec.inputs.map(valueInfo),
      output: spec.outputs.map(valueInfo),
    },
  };
  const error = ModelProto.verify(model);
  if (error) throw new Error(`invalid ONNX model: ${error}`);
  return ModelProto.encode(ModelProto.fromObject(model)).finish();
}
