import type { ImageEntry } from '../../annotations/annotation';
import { addWithoutDuplicates, type LeftOutReason } from './objectDedupe';
import type { TextSegmenter } from './textSegmentation';

/**
 * "Label all": the text prompt of the panel run on every open image, the current one first, one
 * image at a time in the background (the engine worker answers one job at a time, so clicks on the
 * current image keep their turn between images). Each image's answer lands as proposals through the
 * de-duplication rule (objectDedupe.ts), one undo step per image; Stop ends the run after the image
 * in progress and drops that image's answer.
 */

export interface LabelAllProgress {
  readonly prompts: readonly string[];
  /** Images answered so far, of `total`. */
  readonly done: number;
  readonly total: number;
  /** Proposals added so far. */
  readonly added: number;
  /** Answers left out (already there, rejected before, a group of instances...). */
  readonly leftOut: readonly LeftOutReason[];
  /** The image being answered now (null when the run is over). */
  readonly working: string | null;
  readonly stopped: boolean;
}

/** The current image first, then the others in the session's order. */
export function labellingOrder(images: readonly ImageEntry[], activeImageId: string | null): ImageEntry[] {
  const active = images.find((i) => i.id === activeImageId);
  return active ? [active, ...images.filter((i) => i !== active)] : [...images];
}

/** What lands the proposals of one image (the studio's de-duplicating add, in one undo step). */
export type AddProposals = typeof addWithoutDuplicates;

export async function labelAllImages(
  images: readonly ImageEntry[],
  activeImageId: string | null,
  prompts: readonly string[],
  segmenter: TextSegmenter,
  signal: AbortSignal,
  onProgress: (progress: LabelAllProgress) => void,
  add: AddProposals = addWithoutDuplicates,
): Promise<LabelAllProgress> {
  const order = labellingOrder(images, activeImageId);
  let progress: LabelAllProgress = { prompts, done: 0, total: order.length, added: 0, leftOut: [], working: order[0]?.name ?? null, stopped: false };
  onProgress(progress);
  for (const image of order) {
    if (signal.aborted) break;
    progress = { ...progress, working: image.name };
    onProgress(progress);
    const answer = await segmenter.segment(image, prompts);
    if (signal.aborted) break;
    const { added, reasons } = add(image, answer.objects, `label all “${prompts.join(', ')}” on ${image.name}`);
    progress = { ...progress, done: progress.done + 1, added: progress.added + added, leftOut: [...progress.leftOut, ...reasons] };
    onProgress(progress);
  }
  progress = { ...progress, working: null, stopped: signal.aborted };
  onProgress(progress);
  return progress;
}
