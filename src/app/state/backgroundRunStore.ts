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
  /**
   * Starts `work` unless a run is under way (false then): it gets the run's stop signal and reports
   * its progress here; a failure is kept as `error`, after `failure`.
   */
  start(work: (signal: AbortSignal, report: (progress: P) => void) => Promise<unknown>, failure: string): boolean;
  stop(): void;
}

export function createBackgroundRunStore<P>() {
  return create<BackgroundRunState<P>>((set, get) => ({
    progress: null,
    controller: null,
    error: null,
    start: (work, failure) => {
      if (get().controller) return false;
      const controller = new AbortController();
      set({ controller, progress: null, error: null });
      work(controller.signal, (progress) => set({ progress })).then(
        () => set({ controller: null }),
        (e: unknown) => set({ controller: null, error: `${failure}: ${e instanceof Error ? e.message : String(e)}` }),
      );
      return true;
    },
    stop: () => get().controller?.abort(),
  }));
}
