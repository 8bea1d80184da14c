import { useDetail } from '../state/detailStore';
import { masksOutOfDate, withOutlines } from '../state/outlineOps';
import { useStudio } from '../state/studioStore';
import type { OutlineOptions } from '../../engine/options';
import type { BinaryMask, PolygonWithHoles } from '../../engine/types';

/**
 * Keeps the outlines on screen at the Detail slider's tolerance: when the slider moves, or the
 * document shows outlines traced at another one (a session restored, an undo back to candidates of
 * an earlier position, a result asked for before the slider moved), their masks are traced again in
 * the engine worker and the new outlines land without an undo step (outlineOps.ts). One re-trace
 * runs at a time and the latest state wins, so a drag of the slider costs a few re-traces, not one
 * per step. Nothing else traces a mask twice.
 */

/** Traces masks at an outline (the engine session's `retrace`). */
export type Retrace = (masks: readonly BinaryMask[], outline: Partial<OutlineOptions>) => Promise<PolygonWithHoles[][]>;

export class OutlineFollower {
  private running: Promise<void> | null = null;
  /** Something changed since the running pass looked. */
  private again = false;

  constructor(private readonly retrace: Retrace) {}

  private async retraceOutOfDate(): Promise<void> {
    while (this.again) {
      this.again = false;
      const { tolerance } = useDetail.getState();
      const masks = masksOutOfDate(useStudio.getState().history.present, tolerance);
      if (masks.length === 0) continue;
      const polygons = await this.retrace(masks, { tolerance }).catch(() => null);
      if (!polygons) {
        // A failed trace leaves the outlines as they were, until the next change asks again.
        this.again = false;
        return;
      }
      // The slider moved on meanwhile: the next pass traces for where it is now.
      if (useDetail.getState().tolerance !== tolerance) continue;
      const outlines = new Map(masks.map((mask, i) => [mask, polygons[i]]));
      useStudio.getState().settle((doc) => withOutlines(doc, outlines, tolerance));
    }
  }

  private sync(): void {
    this.again = true;
    if (this.running) return;
    this.running = this.retraceOutOfDate().finally(() => {
      this.running = null;
      if (this.again) this.sync();
    });
  }

  /** Starts following the slider and the document; returns the way to stop. */
  watch(): () => void {
    const stopDetail = useDetail.subscribe((state, previous) => state.tolerance !== previous.tolerance && this.sync());
    const stopStudio = useStudio.subscribe((state, previous) => state.history.present !== previous.history.present && this.sync());
    this.sync();
    return () => {
      stopDetail();
      stopStudio();
    };
  }

  /** Resolves once the outlines follow the slider (exports wait for it, so a file matches the screen). */
  async settled(): Promise<void> {
    while (this.running) await this.running;
  }
}
