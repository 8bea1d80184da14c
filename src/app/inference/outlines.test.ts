/**
 * The Detail slider re-traces the session's outlines and lands them without an undo step, the
 * slider's latest position winning. No engine worker runs here (as in Remote mode), so the masks
 * are traced by the same engine function on this thread.
 */
import { describe, expect, it } from 'vitest';
import { maskOutline } from '../../engine/polygons';
import { emptyMask, paintStroke } from '../geometry/maskPaint';
import { useDetail } from '../state/detailStore';
import { addPaintedObject } from '../state/objectOps';
import { currentDocument, studio, useStudio } from '../state/studioStore';
import { OutlineFollower } from './outlines';

// As the engine session traces when no engine worker was started: the same engine function, here.
const follower = new OutlineFollower(async (masks, outline) => masks.map((mask) => maskOutline(mask, outline)));

const image = { id: 'img', name: 'a.png', width: 400, height: 300 };
// Large enough that the error control (IoU ≥ 0.99 per part) leaves room to simplify.
const disc = paintStroke(emptyMask(400, 300), [[200, 150]], 120, 1);

function paintOne(): void {
  useStudio.getState().load({ images: [], activeImageId: null, objects: {}, prompts: {}, classes: [], activeClassId: null });
  studio.addImage(image);
  const { tolerance } = useDetail.getState();
  useStudio.getState().apply('paint', (d) => addPaintedObject(d, 'img', 'o1', disc, { tolerance }));
}

const shown = () => currentDocument().objects.img[0];
const setTolerance = (tolerance: number) => useDetail.getState().setTolerance(tolerance);

describe('outlines follow the Detail slider', () => {
  it('re-traces every outline at the new tolerance, without an undo step', async () => {
    const stop = follower.watch();
    setTolerance(0);
    paintOne();
    await follower.settled();
    const before = shown().polygons;
    const steps = useStudio.getState().history.labels.length;
    setTolerance(3);
    await follower.settled();
    expect(shown().polygons).toEqual(maskOutline(disc, { tolerance: 3 }));
    expect(shown().outlineTolerance).toBe(3);
    expect(shown().polygons[0].outer.length).toBeLessThan(before[0].outer.length);
    expect(useStudio.getState().history.labels).toHaveLength(steps);
    stop();
  });

  it('ends at the latest position when it moves again while a trace is running', async () => {
    const stop = follower.watch();
    setTolerance(0);
    paintOne();
    setTolerance(3);
    setTolerance(1.2);
    setTolerance(2);
    await follower.settled();
    expect(shown().polygons).toEqual(maskOutline(disc, { tolerance: 2 }));
    stop();
  });

  it('re-traces what a restored session or an undo brings back at another tolerance', async () => {
    const stop = follower.watch();
    setTolerance(0);
    paintOne();
    const painted = currentDocument();
    // As a session saved at another position of the slider would come back.
    useStudio.getState().load({ ...painted, objects: { img: painted.objects.img.map((o) => ({ ...o, polygons: [], outlineTolerance: 3 })) } });
    await follower.settled();
    expect(shown().polygons).toEqual(maskOutline(disc, { tolerance: 0 }));
    stop();
  });
});
