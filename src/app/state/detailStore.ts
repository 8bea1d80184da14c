import { create } from 'zustand';
import { DEFAULT_SEGMENTATION_OPTIONS } from '../../engine/options';

/** The detail slider: how closely outlines follow the masks. */
interface DetailState {
  /** Douglas-Peucker tolerance in image pixels; outlines follow it (inference/outlines.ts). */
  tolerance: number;
  setTolerance(tolerance: number): void;
}

export const useDetail = create<DetailState>((set) => ({
  tolerance: DEFAULT_SEGMENTATION_OPTIONS.tolerance,
  setTolerance: (tolerance) => set({ tolerance }),
}));
