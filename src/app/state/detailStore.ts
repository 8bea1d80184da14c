import { create } from 'zustand';

/** The detail slider: how closely outlines follow the masks. */
interface DetailState {
  /** Douglas-Peucker tolerance in image pixels. */
  tolerance: number;
  setTolerance(tolerance: number): void;
}

export const useDetail = create<DetailState>((set) => ({
  tolerance: 0.7,
  setTolerance: (tolerance) => set({ tolerance }),
}));
