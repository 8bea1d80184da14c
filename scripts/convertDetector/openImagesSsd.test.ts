import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import protobuf from 'protobufjs';
import { describe, expect, it } from 'vitest';
import { OPEN_IMAGES_LABELS, OPEN_IMAGES_SSD_ANCHORS } from '../../src/engine/text/openImagesSsd';
import { packedFileList, readOpenImagesSsdSource } from './openImagesSsd';
import { readTfliteModel } from './tflite';

const objectronDir = dirname(createRequire(import.meta.url).resolve('@mediapipe/objectron/package.json'));

describe('the Open Images SSD in @mediapipe/objectron', () => {
  it('lists its packed files with byte ranges, and the label map is the engine\'s, in column order', () => {
    const files = packedFileList(readFileSync(join(objectronDir, 'objectron_solution_packed_assets_loader.js'), 'utf8'));
    expect(files.map((f) => f.filename)).toContain('/object_detection_oidv4_labelmap.txt');
    const { labels, tflite } = readOpenImagesSsdSource();
    expect(labels).toEqual([...OPEN_IMAGES_LABELS]);
    const model = readTfliteModel(tflite);
    // The graph ends at the raw SSD outputs: nothing to cut, columns = labels.
    expect(model.outputs.map((i) => [model.tensors[i].name, model.tensors[i].shape])).toEqual([
      ['raw_outputs/box_encodings', [1, 1917, 4]],
      ['raw_outputs/class_predictions', [1, 1917, OPEN_IMAGES_LABELS.length]],
    ]);
  });

  // The engine's anchor options are MediaPipe's: the serialized SsdAnchorsCalculatorOptions they make
  // (mediapipe/calculators/tflite/ssd_anchors_calculator.proto field numbers) occur byte for byte in
  // the graph config compiled into the package's WebAssembly, beside the model's file name.
  it("uses the SsdAnchorsCalculator options of MediaPipe's own graph for this model", () => {
    const o = OPEN_IMAGES_SSD_ANCHORS;
    const w = protobuf.Writer.create();
    w.uint32((1 << 3) | 0).int32(o.inputSize);
    w.uint32((2 << 3) | 0).int32(o.inputSize);
    w.uint32((3 << 3) | 5).float(o.minScale);
    w.uint32((4 << 3) | 5).float(o.maxScale);
    w.uint32((5 << 3) | 5).float(0.5); // anchor_offset_x
    w.uint32((6 << 3) | 5).float(0.5); // anchor_offset_y
    w.uint32((7 << 3) | 0).int32(o.strides.length); // num_layers
    for (const s of o.strides) w.uint32((10 << 3) | 0).int32(s);
    for (const r of o.aspectRatios) w.uint32((11 << 3) | 5).float(r);
    w.uint32((12 << 3) | 0).bool(o.reduceBoxesInLowestLayer);
    const expected = Buffer.from(w.finish());
    const wasm = readFileSync(join(objectronDir, 'objectron_solution_wasm_bin.wasm'));
    const at = wasm.indexOf(expected);
    expect(at).toBeGreaterThan(0);
    const nearby = wasm.subarray(at - 400, at).toString('latin1');
    expect(nearby).toContain('object_detection_ssd_mobilenetv2_oidv4_fp16.tflite');
    // interpolated_scale_aspect_ratio is left at its default, 1.0.
    expect(o.interpolatedScaleAspectRatio).toBe(1);
  });
});
