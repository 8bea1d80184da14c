import type { ReactNode } from 'react';
import type { StoreApi, UseBoundStore } from 'zustand';
import type { BackgroundRunState } from '../state/backgroundRunStore';

/** A background run's line: what it is doing or how it ended, and while it runs a progress bar and Stop. */
export function RunProgress(props: { testId: string; running: boolean; max: number; value: number; label: string; stopTitle: string; onStop(): void; children: ReactNode }) {
  return (
    <div className="model-progress" data-testid={props.testId}>
      <span role="status">{props.children}</span>
      {props.running && (
        <>
          <progress max={props.max || 1} value={props.value} aria-label={props.label} />
          <button type="button" className="small" onClick={props.onStop} title={props.stopTitle}>
            Stop
          </button>
        </>
      )}
    </div>
  );
}

/** A background run's line read from its store (backgroundRunStore.ts), and how the last run ended. */
export function StoreRunProgress<P>(props: {
  store: UseBoundStore<StoreApi<BackgroundRunState<P>>>;
  testId: string;
  label: string;
  stopTitle: string;
  steps(progress: P): { max: number; value: number };
  text(progress: P, running: boolean): string;
}) {
  const progress = props.store((s) => s.progress);
  const running = props.store((s) => s.controller !== null);
  const error = props.store((s) => s.error);
  return (
    <>
      {progress && (
        <RunProgress testId={props.testId} running={running} {...props.steps(progress)} label={props.label} stopTitle={props.stopTitle} onStop={() => props.store.getState().stop()}>
          {props.text(progress, running)}
        </RunProgress>
      )}
      {error && <p className="error">{error}</p>}
    </>
  );
}
