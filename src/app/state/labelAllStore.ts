import { create } from 'zustand';
import type { LabelAllProgress } from '../inference/labelAll';

/**
 * Where a "Label all" run stands (view state, outside the text panel, which is remade per image):
 * its progress, the way to stop it, and how the last run ended.
 */
interface LabelAllState {
  progress: LabelAllProgress | null;
  /** Set while a run is under way. */
  controller: AbortController | null;
  /** How the last run ended (an error or a summary), until the next one starts. */
  error: string | null;
  begin(controller: AbortController): void;
  report(progress: LabelAllProgress): void;
  end(error?: string | null): void;
  stop(): void;
}

export const useLabelAll = create<LabelAllState>((set, get) => ({
  progress: null,
  controller: null,
  error: null,
  begin: (controller) => set({ controller, progress: null, error: null }),
  report: (progress) => set({ progress }),
  end: (error = null) => set({ controller: null, error }),
  stop: () => get().controller?.abort(),
}));
