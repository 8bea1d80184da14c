import { useDetail } from '../state/detailStore';
import { masksOutOfDate, withOutlines } from '../state/outlineOps';
import { useStudio } from '../state/studioStore';
import { retraceMasks } from './localEngine';

/**
 * Keeps the outlines on screen at the Detail slider's tolerance: when the slider moves, or the
 * document shows outlines traced at another one (a session restored, an undo back to candidates of
 * an earlier position, a result asked for before the slider moved), their masks are traced again in
 * the engine worker and the new outlines land without an undo step (outlineOps.ts). One re-trace
 * runs at a time and the latest state wins, so a drag of the slider costs a few re-traces, not one
 * per step. Nothing else traces a mask twice.
 */

let running: Promise<void> | null = null;
/** Something changed since the running pass looked. */
let again = false;

async function retraceOutOfDate(): Promise<void> {
  while (again) {
    again = false;
    const { tolerance } = useDetail.getState();
    const masks = masksOutOfDate(useStudio.getState().history.present, tolerance);
    if (masks.length === 0) continue;
    const polygons = await retraceMasks(masks, { tolerance }).catch(() => null);
    if (!polygons) {
      // A failed trace leaves the outlines as they were, until the next change asks again.
      again = false;
      return;
    }
    // The slider moved on meanwhile: the next pass traces for where it is now.
    if (useDetail.getState().tolerance !== tolerance) continue;
    const outlines = new Map(masks.map((mask, i) => [mask, polygons[i]]));
    useStudio.getState().settle((doc) => withOutlines(doc, outlines, tolerance));
  }
}

function sync(): void {
  again = true;
  if (running) return;
  running = retraceOutOfDate().finally(() => {
    running = null;
    if (again) sync();
  });
}

/** Starts following the slider and the document; returns the way to stop. */
export function watchOutlines(): () => void {
  const stopDetail = useDetail.subscribe((state, previous) => state.tolerance !== previous.tolerance && sync());
  const stopStudio = useStudio.subscribe((state, previous) => state.history.present !== previous.history.present && sync());
  sync();
  return () => {
    stopDetail();
    stopStudio();
  };
}

/** Resolves once the outlines follow the slider (exports wait for it, so a file matches the screen). */
export async function outlinesSettled(): Promise<void> {
  while (running) await running;
}
