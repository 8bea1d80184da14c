import { create } from 'zustand';
import type { PolygonWithHoles } from '../../engine/types';

/** The mask a click at the resting cursor would give, drawn dashed under the cursor (local mode). */
export interface HoverPreview {
  readonly imageId: string;
  readonly polygons: readonly PolygonWithHoles[];
}

interface HoverPreviewState {
  preview: HoverPreview | null;
  setPreview(preview: HoverPreview | null): void;
}

/** Written only by the inference scheduler; the canvas reads it. */
export const useHoverPreview = create<HoverPreviewState>((set) => ({
  preview: null,
  setPreview: (preview) => set({ preview }),
}));
