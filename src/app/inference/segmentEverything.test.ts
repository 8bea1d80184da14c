/**
 * Segment everything in the studio: the real engine in a Node worker thread (as the browser's Web
 * Worker serves it) on a real photo, the real document store. A small grid keeps the decoder runs few.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEngineThread } from '../../../test/support/engineThreads';
import { decodeImage } from '../../engine/adapters/nodeImage';
import type { EverythingEvent } from '../../engine/service/api';
import type { RgbaImage } from '../../engine/types';
import { addImage } from '../state/documentOps';
import { emptyDocument } from '../state/model';
import { type ImageEntry } from '../../annotations/annotation';
import { reviewStateOf } from '../../annotations/review';
import { currentDocument, studio, useStudio } from '../state/studioStore';
import { liveProposals, segmentEverythingOnImage, type EverythingEngine, type EverythingProgress } from './segmentEverything';

const GRID = { rule: 'grid' as const, gridSides: [4] };
let chelsea: RgbaImage;
let image: ImageEntry;
let thread: Awaited<ReturnType<typeof startEngineThread>>;
let engine: EverythingEngine;

beforeAll(async () => {
  chelsea = await decodeImage(readFileSync(new URL('../../../public/samples/chelsea.png', import.meta.url)));
  image = { id: 'chelsea', name: 'chelsea.png', width: chelsea.width, height: chelsea.height };
  thread = await startEngineThread({ encoderPrecision: 'int8', decoderPrecision: 'int8' });
  // What EngineSession.segmentEverything asks of its worker, on this thread's engine.
  engine = { segmentEverything: (imageId, request, call) => thread.api.segmentEverything({ ...request, image: chelsea, imageId }, call) };
}, 120_000);
afterAll(() => thread?.terminate());

function freshSession() {
  useStudio.getState().load({ ...addImage(emptyDocument(), image), activeImageId: image.id });
}

describe('segment everything in the studio', () => {
  it('lands the answer as unlabelled proposals of segment everything, with their confidence, in one undo step; a second run adds nothing', async () => {
    freshSession();
    const seen: EverythingProgress[] = [];
    const end = await segmentEverythingOnImage(engine, image, { tolerance: 1, options: GRID }, new AbortController().signal, (p) => seen.push(p));
    expect(end).toMatchObject({ running: false, stopped: false, decoded: 16, planned: 16 });
    expect(seen.map((p) => p.decoded)).toEqual([0, ...Array.from({ length: 16 }, (_, i) => i + 1), 16]);
    const objects = currentDocument().objects[image.id];
    expect(end.added).toBeGreaterThan(0);
    expect(objects).toHaveLength(end.added);
    expect(end.added + end.leftOut.length).toBe(end.found);
    for (const o of objects) {
      expect(reviewStateOf(o)).toBe('unreviewed');
      expect(o.review?.source).toBe('segment-everything');
      expect(o.classId).toBeNull();
      expect(o.confidence).toBeGreaterThan(0);
      expect(o.confidence).toBeLessThanOrEqual(1);
      expect(o.mask?.width).toBe(image.width);
    }
    expect(useStudio.getState().history.labels.at(-1)).toBe('segment everything on chelsea.png');

    // Nothing twice: every region is already proposed.
    const again = await segmentEverythingOnImage(engine, image, { tolerance: 1, options: GRID }, new AbortController().signal, () => undefined);
    expect(again.added).toBe(0);
    expect(again.leftOut.length).toBe(again.found);
    expect(currentDocument().objects[image.id]).toHaveLength(end.added);

    studio.undo();
    expect(currentDocument().objects[image.id]).toEqual([]);
  }, 120_000);

  it('Stop: the engine stops, and what it had found so far lands (one undo step)', async () => {
    freshSession();
    const controller = new AbortController();
    const events: EverythingEvent[] = [];
    const end = await segmentEverythingOnImage(
      { segmentEverything: (id, request, call) => engine.segmentEverything(id, request, { ...call, onEvent: (e) => (events.push(e), call?.onEvent?.(e), e.decoded === 5 && controller.abort()) }) },
      image,
      { tolerance: 1, options: { rule: 'grid', gridSides: [16] } },
      controller.signal,
      () => undefined,
    );
    expect(end).toMatchObject({ running: false, stopped: true, decoded: 5, planned: 256 });
    expect(events.at(-1)!.decoded).toBe(5);
    expect(end.found).toBe(liveProposals(events).length);
    expect(end.found).toBeGreaterThan(0);
    expect(currentDocument().objects[image.id]).toHaveLength(end.added);
    expect(useStudio.getState().history.labels.filter((l) => l.startsWith('segment everything'))).toHaveLength(end.added > 0 ? 1 : 0);
  }, 120_000);

  it('the proposals so far: those a later, better one replaced are gone, best first', () => {
    const p = (id: number, confidence: number) => ({ id, confidence, source: 'grid' as const, area: 1, polygons: [], mask: { width: 1, height: 1, data: new Uint8Array(1) } });
    const events: EverythingEvent[] = [
      { stage: 'grid', decoded: 1, planned: 2, added: [p(0, 0.5), p(1, 0.7)], removed: [] },
      { stage: 'grid', decoded: 2, planned: 2, added: [p(2, 0.9)], removed: [0] },
    ];
    expect(liveProposals(events).map((x) => x.id)).toEqual([2, 1]);
  });
});
