/** Building blocks for the graph rewrites of scripts/onnx*.mjs (onnx-proto messages). */
import onnxProto from 'onnx-proto';

const { onnx } = onnxProto;
const T = onnx.TensorProto.DataType;
const A = onnx.AttributeProto.AttributeType;

export const node = (name, opType, input, output, attribute = []) => onnx.NodeProto.create({ name, opType, input, output, attribute });
export const intAttribute = (name, i) => onnx.AttributeProto.create({ name, type: A.INT, i });
export const intsAttribute = (name, ints) => onnx.AttributeProto.create({ name, type: A.INTS, ints });
export const floatAttribute = (name, f) => onnx.AttributeProto.create({ name, type: A.FLOAT, f });

/** A float32 initializer holding `values` (its bytes, not a copy). */
export const floatTensor = (name, dims, values) =>
  onnx.TensorProto.create({ name, dims, dataType: T.FLOAT, rawData: new Uint8Array(values.buffer, values.byteOffset, values.byteLength) });

/** A 1-D int64 initializer (shapes, axes). */
export const int64Tensor = (name, values) => {
  const data = BigInt64Array.from(values.map(BigInt));
  return onnx.TensorProto.create({ name, dims: [values.length], dataType: T.INT64, rawData: new Uint8Array(data.buffer) });
};
