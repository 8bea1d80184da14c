import { create } from 'zustand';

/**
 * Where a background run of the studio stands (view state, outside the panels, which are remade per
 * image): its progress, the way to stop it, and how the last run ended. One store per kind of run.
 */
export interface BackgroundRunState<P> {
  progress: P | null;
  /** Set while a run is under way. */
  controller: AbortController | null;
  /** How the last run ended (an error or a summary), until the next one starts. */
  error: string | null;
  begin(controller: AbortController): void;
  report(progress: P): void;
  end(error?: string | null): void;
  stop(): void;
}

export function createBackgroundRunStore<P>() {
  return create<BackgroundRunState<P>>((set, get) => ({
    progress: null,
    controller: null,
    error: null,
    begin: (controller) => set({ controller, progress: null, error: null }),
    report: (progress) => set({ progress }),
    end: (error = null) => set({ controller: null, error }),
    stop: () => get().controller?.abort(),
  }));
}
