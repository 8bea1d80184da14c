import { create } from 'zustand';
import type { Camera } from '../geometry/camera';

/** How the canvas looks at the active image (zoom and pan). View state, not undoable. */
interface CameraState {
  camera: Camera | null;
  setCamera(camera: Camera | null): void;
}

export const useCamera = create<CameraState>((set) => ({
  camera: null,
  setCamera: (camera) => set({ camera }),
}));
