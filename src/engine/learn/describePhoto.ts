/**
 * Descriptors of regions on one embedded photo, the same way everywhere: EngineApi.describeRegions
 * (the studio's worker, the server, the CLI) and the learn eval call this one function.
 */
import type { SegmentationEngine } from '../engine';
import type { ConceptDetector, Detection, DetectorRun } from '../text/detector';
import type { BinaryMask, RgbaImage } from '../types';
import { describeRegion, samCells, type PhotoContext, type RegionDescriptor } from './descriptors';

/** Detections this weak still count: a faint "cat" on a raccoon is part of its signature. */
export const DESCRIPTOR_MIN_DETECTOR_SCORE = 0.05;

/**
 * The detectors' boxes on the photo, as the `detectors` descriptor reads them, and from the same runs
 * the feature map the `backbone` descriptor pools (the first detector that gives one: COCO-SSD).
 */
export async function detectorsForDescriptors(image: RgbaImage, detectors: readonly ConceptDetector[]): Promise<DetectorRun> {
  const detections: Detection[] = [];
  let features: DetectorRun['features'];
  const options = { minScore: DESCRIPTOR_MIN_DETECTOR_SCORE };
  for (const d of detectors) {
    const run = d.detectWithFeatures && !features ? await d.detectWithFeatures(image, options) : { detections: await d.detect(image, options) };
    features ??= run.features;
    for (const found of run.detections) detections.push({ ...found, detector: d.name });
  }
  return features ? { detections, features } : { detections };
}

/** What every region of the photo shares: its SAM cells (from the cached embedding), the detectors' boxes and features. */
export function photoContext(engine: Pick<SegmentationEngine, 'getEmbedding'>, imageKey: string, image: RgbaImage, detectorRun: DetectorRun): PhotoContext {
  const entry = engine.getEmbedding(imageKey);
  if (!entry) throw new Error(`no embedding for image "${imageKey}": embed the image first`);
  if (entry.width !== image.width || entry.height !== image.height) throw new Error(`the photo is ${image.width}×${image.height}, its embedding ${entry.width}×${entry.height}`);
  return { image, cells: samCells(entry.embedding, image.width, image.height), detections: detectorRun.detections, features: detectorRun.features };
}

export function describeMasks(photo: PhotoContext, masks: readonly BinaryMask[]): RegionDescriptor[] {
  return masks.map((mask) => {
    if (mask.width !== photo.image.width || mask.height !== photo.image.height) {
      throw new Error(`a mask is ${mask.width}×${mask.height} but the photo is ${photo.image.width}×${photo.image.height}`);
    }
    return describeRegion(photo, mask);
  });
}
