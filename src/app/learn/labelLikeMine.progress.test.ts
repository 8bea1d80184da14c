/**
 * The progress of "Label all like my labels". Stop during it while the engine segments a photo (the long part of a step
 * with the bulk rule): the run ends as stopped, not as a failure, and the photo it was learning from
 * is left to be learned from next time; until then the progress follows the engine region by region. The engine is the real one in a Node worker thread, on a real
 * photo; the learner is the stripes session of testLearners.ts.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startEngineThread } from '../../../test/support/engineThreads';
import { decodeImage } from '../../engine/adapters/nodeImage';
import type { RgbaImage } from '../../engine/types';
import { labelLikeMine, type LabelLikeMinePorts, type LabelLikeMineProgress } from './labelLikeMine';
import { drawn, PHOTO, testStudio } from './testLearners';

let chelsea: RgbaImage;
let thread: Awaited<ReturnType<typeof startEngineThread>>;

beforeAll(async () => {
  chelsea = await decodeImage(readFileSync(new URL('../../../public/samples/chelsea.png', import.meta.url)));
  thread = await startEngineThread({ encoderPrecision: 'int8', decoderPrecision: 'int8' });
}, 120_000);
afterAll(() => thread?.terminate());

it('the progress follows the engine on a photo; Stop meanwhile ends the run as stopped, with nothing learned from that photo', async () => {
  const studio = testStudio([drawn('red', 0), drawn('red', 1), drawn('green', 0)]);
  const controller = new AbortController();
  let decoded = 0;
  const ports: LabelLikeMinePorts = {
    document: () => studio.doc,
    // Segment everything as the studio asks it, stopped by the person after a few decoder runs.
    candidates: async (_image, _textClasses, signal, segmented) => {
      const answer = await thread.api.segmentEverything(
        { image: chelsea, imageId: 'chelsea', options: { rule: 'grid', gridSides: [16] }, outline: { tolerance: 1 } },
        { signal, onEvent: (e) => ((decoded = e.decoded), segmented?.(e.decoded, e.planned), e.decoded === 5 && controller.abort()) },
      );
      return answer.proposals.map((p) => ({ mask: p.mask, polygons: p.polygons }));
    },
    describe: () => Promise.reject(new Error('a run stopped before its candidates describes none')),
    detectorKnows: () => false,
    add: () => ({ added: 0, duplicates: 0, reasons: [] }),
    tolerance: 1,
  };
  const seen: LabelLikeMineProgress[] = [];
  const end = await labelLikeMine(studio.learner, ports, controller.signal, (p) => seen.push(p));
  expect(decoded).toBe(5);
  expect(end).toMatchObject({ stopped: true, done: 0, added: 0, working: null });
  expect(seen.map((p) => p.working).slice(0, 2)).toEqual(['learning your latest labels', `learning from your labels on ${PHOTO}`]);
  expect(studio.learner.isMined(PHOTO)).toBe(false);
  // While the engine worked on the photo, the progress said how far it was, region by region.
  expect(seen.filter((p) => p.segmented).map((p) => p.segmented)).toEqual([1, 2, 3, 4, 5].map((n) => ({ decoded: n, planned: 256 })));
}, 180_000);

it('says it is learning before the learner catches up with my latest labels, not only once the steps begin', async () => {
  const studio = testStudio([drawn('red', 0), drawn('green', 0)]);
  const describedAt: number[] = [];
  const ports: LabelLikeMinePorts = {
    document: () => studio.doc,
    candidates: async () => [],
    describe: async () => [],
    detectorKnows: () => false,
    add: () => ({ added: 0, duplicates: 0, reasons: [] }),
    tolerance: 1,
  };
  await labelLikeMine(studio.learner, ports, new AbortController().signal, () => describedAt.push(studio.described));
  // The first line came before the learner described the two drawn boxes; by the next it had.
  expect(describedAt.slice(0, 2)).toEqual([0, 2]);
});
