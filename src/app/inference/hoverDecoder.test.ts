import { beforeEach, describe, expect, it } from 'vitest';
import { HeldDecoder, ManualClock, PreviewShown, settled, squareCandidate } from '../../../test/support/schedulerTestKit';
import { emptyDocument } from '../state/model';
import { studioPromptDocument } from './promptEdits';
import { studio, useStudio } from '../state/studioStore';
import { HOVER_REST_MS, HoverDecoder } from './hoverDecoder';
import type { LocalCandidate } from './engineSession';
import { RestedDecode } from './restedDecode';
import type { SchedulerSettings } from './schedulerPorts';

/** The preview under the cursor on the real studio store; the engine worker is stood in for. */

const IMAGE = { id: 'coffee', name: 'coffee.png', width: 600, height: 400 };

let decoder: HeldDecoder;
let clock: ManualClock;
let preview: PreviewShown;
let settings: { -readonly [K in keyof SchedulerSettings]: SchedulerSettings[K] };
let rested: RestedDecode<LocalCandidate[]>;
let hover: HoverDecoder;

beforeEach(() => {
  useStudio.getState().load(emptyDocument());
  studio.addImage(IMAGE);
  decoder = new HeldDecoder();
  clock = new ManualClock();
  preview = new PreviewShown();
  settings = { mode: 'local', tool: 'positive', tolerance: 1, remote: { baseUrl: '', apiKey: '' }, mirrorPass: false };
  rested = new RestedDecode();
  hover = new HoverDecoder({ document: studioPromptDocument, decoder, settings: () => settings, preview, clock, rested, restedMask: new RestedDecode() });
});

describe('HoverDecoder', () => {
  it('decodes where the cursor comes to rest, not the spots it passes over; shows the preview', async () => {
    hover.at(IMAGE.id, [10, 10]);
    clock.advance(HOVER_REST_MS - 1);
    hover.at(IMAGE.id, [20, 20]);
    hover.at(IMAGE.id, [30, 30]);
    clock.advance(HOVER_REST_MS - 1);
    expect(decoder.calls).toHaveLength(0);
    clock.advance(1);
    expect(decoder.calls).toHaveLength(1);
    expect(decoder.calls[0].prompt.points).toEqual([{ x: 30, y: 30, positive: true }]);
    decoder.calls[0].answer([squareCandidate(5)]);
    await settled();
    expect(preview.preview).toEqual({ imageId: IMAGE.id, polygons: squareCandidate(5).polygons });
  });

  it('one decode in flight: a spot rested on meanwhile is decoded after it, one only passed over is not', async () => {
    hover.at(IMAGE.id, [10, 10]);
    clock.advance(HOVER_REST_MS);
    hover.at(IMAGE.id, [40, 40]);
    clock.advance(HOVER_REST_MS);
    expect(decoder.calls).toHaveLength(1);
    decoder.calls[0].answer([squareCandidate(5)]);
    await settled();
    expect(decoder.calls).toHaveLength(2);
    expect(decoder.calls[1].prompt.points).toEqual([{ x: 40, y: 40, positive: true }]);
    hover.at(IMAGE.id, [50, 50]);
    clock.advance(HOVER_REST_MS);
    hover.at(IMAGE.id, [60, 60]);
    decoder.calls[1].answer([squareCandidate(6)]);
    await settled();
    expect(decoder.calls).toHaveLength(2);
    clock.advance(HOVER_REST_MS);
    expect(decoder.calls).toHaveLength(3);
    expect(decoder.calls[2].prompt.points).toEqual([{ x: 60, y: 60, positive: true }]);
  });

  it('an answer for a prompt that has moved on is never shown', async () => {
    hover.at(IMAGE.id, [10, 10]);
    clock.advance(HOVER_REST_MS);
    studio.setBox(IMAGE.id, { x: 300, y: 200, width: 100, height: 80 });
    decoder.calls[0].answer([squareCandidate(5)]);
    await settled();
    expect(preview.preview).toBeNull();
  });

  it('leaving the image, a non-point tool or an image not analysed yet: no preview, no decode', async () => {
    hover.at(IMAGE.id, [10, 10]);
    clock.advance(HOVER_REST_MS);
    decoder.calls[0].answer([squareCandidate(5)]);
    await settled();
    expect(preview.preview).not.toBeNull();
    hover.at(IMAGE.id, [20, 20]);
    hover.at(IMAGE.id, null);
    expect(preview.preview).toBeNull();
    clock.advance(HOVER_REST_MS);
    settings.tool = 'box';
    hover.at(IMAGE.id, [40, 40]);
    clock.advance(HOVER_REST_MS);
    settings.tool = 'positive';
    decoder.embedded = false;
    hover.at(IMAGE.id, [40, 40]);
    clock.advance(HOVER_REST_MS);
    expect(decoder.calls).toHaveLength(1);
  });

  it('asks what a click there would, and leaves that decode for the click', () => {
    settings.tool = 'negative';
    studio.addPoint(IMAGE.id, { x: 50, y: 50, positive: true });
    const revision = studioPromptDocument.prompt(IMAGE.id).revision;
    hover.at(IMAGE.id, [60, 70]);
    clock.advance(HOVER_REST_MS);
    expect(decoder.calls[0].prompt.points).toEqual([{ x: 50, y: 50, positive: true }, { x: 60, y: 70, positive: false }]);
    expect(decoder.calls[0].options).toEqual({ multimask: false, tolerance: 1, mirrorAverage: false });
    expect(rested.take({ imageId: IMAGE.id, revision, x: 60, y: 70, positive: false, multimask: false, previous: undefined, tolerance: 1 })).toBeDefined();
  });

  it('negative points alone select nothing: no decode', () => {
    settings.tool = 'negative';
    hover.at(IMAGE.id, [60, 70]);
    clock.advance(HOVER_REST_MS);
    expect(decoder.calls).toHaveLength(0);
  });
});
