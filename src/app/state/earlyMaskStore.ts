import { create } from 'zustand';
import type { BinaryMask } from '../../engine/types';

/**
 * A click's mask as soon as the decoder answers, drawn until its polygons land (they replace it): the
 * outline tracing then no longer stands between the click and something on screen.
 */
export interface EarlyMask {
  readonly imageId: string;
  /** The prompt revision it answers: drawn only while the prompt is still at it. */
  readonly revision: number;
  readonly mask: BinaryMask;
}

interface EarlyMaskState {
  early: EarlyMask | null;
  show(early: EarlyMask): void;
  /** Forgets the mask of this revision (its polygons landed, or it failed); a newer one stays. */
  clear(imageId: string, revision: number): void;
}

/** Written only by the inference scheduler; the canvas reads it. */
export const useEarlyMask = create<EarlyMaskState>((set, get) => ({
  early: null,
  show: (early) => set({ early }),
  clear: (imageId, revision) => {
    const current = get().early;
    if (current && current.imageId === imageId && current.revision === revision) set({ early: null });
  },
}));
