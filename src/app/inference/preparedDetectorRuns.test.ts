/**
 * PreparedDetectorRuns' own rules: one run per photo, the oldest photos let go past the kept number,
 * and a helper that cannot start leaves the description to run the detectors itself (no error). The
 * real detector runs through a real background worker are in engineSession.test.ts.
 */
import { describe, expect, it } from 'vitest';
import type { DetectorRun } from '../../engine/text/detector';
import type { RgbaImage } from '../../engine/types';
import { PreparedDetectorRuns } from './preparedDetectorRuns';

const photo = (width: number): RgbaImage => ({ width, height: 1, data: new Uint8Array(width * 4) });

/** A helper that answers each photo with a run naming its width, and counts what it was asked. */
function countingHelper() {
  const asked: number[] = [];
  const api = {
    detectForDescriptors: async ({ image }: { image: RgbaImage }): Promise<DetectorRun> => {
      asked.push(image.width);
      return { detections: [{ box: { x0: 0, y0: 0, x1: image.width, y1: 1 }, label: 'cat', score: 1, detector: 'test' }] } as unknown as DetectorRun;
    },
  };
  return { asked, helper: async () => api };
}

describe('PreparedDetectorRuns', () => {
  it('runs the detectors once per photo, waits for pixels still coming, and lets the oldest photo go past the kept number', async () => {
    const { asked, helper } = countingHelper();
    const runs = new PreparedDetectorRuns(helper, 2);
    let arrive: (image: RgbaImage) => void = () => undefined;
    runs.prepare('a', new Promise<RgbaImage>((resolve) => (arrive = resolve)));
    runs.prepare('a', photo(99));
    const pending = runs.of('a');
    expect(asked).toEqual([]);
    arrive(photo(1));
    expect(((await pending) as unknown as { detections: { box: { x1: number } }[] }).detections[0].box.x1).toBe(1);
    runs.prepare('b', photo(2));
    runs.prepare('c', photo(3));
    await runs.of('c');
    expect(asked).toEqual([1, 2, 3]);
    expect(['a', 'b', 'c'].map((id) => runs.has(id))).toEqual([false, true, true]);
    await expect(runs.of('a')).resolves.toBeUndefined();
  });

  it('makes no run for a photo the click worker has described already', async () => {
    const { asked, helper } = countingHelper();
    const runs = new PreparedDetectorRuns(helper);
    runs.described('a');
    runs.prepare('a', photo(1));
    await expect(runs.of('a')).resolves.toBeUndefined();
    expect(asked).toEqual([]);
  });

  it("starts a wanted photo's run only when an answer on it lands, once, and never for a photo not wanted or forgotten", async () => {
    const { asked, helper } = countingHelper();
    const runs = new PreparedDetectorRuns(helper);
    runs.answered('a');
    runs.prepareAfterAnswer('a', () => photo(1));
    runs.prepareAfterAnswer('b', () => photo(2));
    runs.prepareAfterAnswer('c', () => photo(3));
    await Promise.resolve();
    expect(asked).toEqual([]);
    expect(runs.has('a')).toBe(false);
    runs.answered('a');
    runs.answered('a');
    runs.prepareAfterAnswer('a', () => photo(99));
    runs.answered('a');
    await runs.of('a');
    runs.forget('b');
    runs.answered('b');
    runs.answered('c');
    await runs.of('c');
    expect(asked).toEqual([1, 3]);
    expect(runs.has('b')).toBe(false);
  });

  it("hands a description the photo's prepared run, then makes none for that photo", async () => {
    const { asked, helper } = countingHelper();
    const runs = new PreparedDetectorRuns(helper);
    runs.prepare('a', photo(4));
    const given = await runs.describing('a', async (detectorRun) => detectorRun);
    expect(given).toBeDefined();
    await expect(runs.describing('b', async (detectorRun) => detectorRun)).resolves.toBeUndefined();
    runs.prepare('b', photo(5));
    runs.prepareAfterAnswer('b', () => photo(6));
    runs.answered('b');
    await expect(runs.of('b')).resolves.toBeUndefined();
    expect(asked).toEqual([4]);
  });

  it('answers undefined, not an error, when the helper worker cannot start', async () => {
    const runs = new PreparedDetectorRuns(() => Promise.reject(new Error('the worker crashed')));
    runs.prepare('a', photo(1));
    await expect(runs.of('a')).resolves.toBeUndefined();
  });
});
