/**
 * What every region of a photo shares when it is described (PhotoContext: the photo's SAM cells, the
 * detectors' boxes and feature map), kept for the last few photos: a person decides on one region
 * after another on the photo in front of them, and the detector runs are the same for every region
 * of it and most of what describing one costs. An entry serves only while the engine still holds the
 * very embedding its cells were pooled from; otherwise the photo is described afresh.
 */
import type { SegmentationEngine } from '../engine';
import type { DetectorRun } from '../text/detector';
import type { RgbaImage } from '../types';
import { photoContext } from './describePhoto';
import type { PhotoContext } from './descriptors';

/** Photos kept: the one on screen and the last ones left, a few MB each (SAM cells and the backbone map). */
export const PHOTO_CONTEXTS_KEPT = 3;

interface Entry {
  readonly embedding: unknown;
  readonly context: PhotoContext;
}

export class PhotoContexts {
  private readonly entries = new Map<string, Entry>();

  constructor(private readonly kept = PHOTO_CONTEXTS_KEPT) {}

  /** The photo's context, from the photo's earlier description when the engine holds the same embedding; `detect` runs the detectors otherwise. */
  async of(engine: Pick<SegmentationEngine, 'getEmbedding'>, imageKey: string, image: RgbaImage, detect: () => Promise<DetectorRun>): Promise<{ context: PhotoContext; reused: boolean }> {
    const embedding = engine.getEmbedding(imageKey)?.embedding;
    const held = this.entries.get(imageKey);
    this.entries.delete(imageKey);
    if (held && embedding !== undefined && held.embedding === embedding && sameSize(held.context.image, image)) {
      this.entries.set(imageKey, held);
      return { context: held.context, reused: true };
    }
    const context = photoContext(engine, imageKey, image, await detect());
    this.entries.set(imageKey, { embedding, context });
    for (const oldest of this.entries.keys()) {
      if (this.entries.size <= this.kept) break;
      this.entries.delete(oldest);
    }
    return { context, reused: false };
  }

  /** Drops one photo's context (or all), as the engine forgets its embedding. */
  forget(imageKey?: string): void {
    if (imageKey === undefined) this.entries.clear();
    else this.entries.delete(imageKey);
  }
}

const sameSize = (a: RgbaImage, b: RgbaImage) => a.width === b.width && a.height === b.height;
