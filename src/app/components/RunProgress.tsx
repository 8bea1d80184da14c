import type { ReactNode } from 'react';

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
