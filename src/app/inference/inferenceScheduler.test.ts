import { beforeEach, describe, expect, it } from 'vitest';
import { EarlyMasksShown, HeldDecoder, ManualClock, PreviewShown, settled, squareCandidate } from '../../../test/support/schedulerTestKit';
import { emptyDocument, type PromptState } from '../state/model';
import { studioPromptDocument, writePromptEdit } from './promptEdits';
import { studio, currentDocument, useStudio } from '../state/studioStore';
import { HOVER_REST_MS } from './hoverDecoder';
import { EMBEDDING_FIRST, InferenceScheduler, NEEDS_API_KEY } from './inferenceScheduler';
import { MIRROR_PASS_PAUSE_MS } from './mirrorPass';
import { RemoteCallError } from '../remote/remoteClient';
import type { RemoteSegmenter, SchedulerSettings } from './schedulerPorts';

/**
 * The scheduler on the real studio store (history, document operations, revisions); the engine
 * worker and the paid API are stood in for, so each test decides when and how they answer.
 */

const IMAGE = { id: 'coffee', name: 'coffee.png', width: 600, height: 400 };

interface Setup {
  scheduler: InferenceScheduler;
  decoder: HeldDecoder;
  clock: ManualClock;
  preview: PreviewShown;
  early: EarlyMasksShown;
  settings: { -readonly [K in keyof SchedulerSettings]: SchedulerSettings[K] };
  remoteKeys: string[];
  remoteAnswers: Array<() => Promise<{ candidates: []; requestId: string; refunded: boolean } | never>>;
  finished: { count: number };
}

let s: Setup;

function setup(): Setup {
  const decoder = new HeldDecoder();
  const clock = new ManualClock();
  const preview = new PreviewShown();
  const early = new EarlyMasksShown();
  const settings: Setup['settings'] = { mode: 'local', tool: 'positive', tolerance: 1, remote: { baseUrl: '', apiKey: 'mw_test_key' }, mirrorPass: false };
  const remoteKeys: string[] = [];
  const remoteAnswers: Setup['remoteAnswers'] = [];
  const finished = { count: 0 };
  const remote: RemoteSegmenter = {
    refusal: async () => null,
    segment: async ({ idempotencyKey }) => {
      remoteKeys.push(idempotencyKey);
      const answer = remoteAnswers.shift();
      if (!answer) throw new Error('no remote answer prepared');
      return answer();
    },
    finished: () => void finished.count++,
  };
  const scheduler = new InferenceScheduler({ document: studioPromptDocument, decoder, remote, settings: () => settings, preview, earlyMask: early, clock });
  return { scheduler, decoder, clock, preview, early, settings, remoteKeys, remoteAnswers, finished };
}

const prompt = (): PromptState => studioPromptDocument.prompt(IMAGE.id);
const areas = () => prompt().candidates.map((c) => c.area);

function click(x: number, y: number, positive = true) {
  const edit = writePromptEdit({ type: 'addPoint', point: { x, y, positive } });
  if (!edit) throw new Error('the click was not written');
  return edit;
}

beforeEach(() => {
  useStudio.getState().load(emptyDocument());
  studio.addImage(IMAGE);
  s = setup();
});

describe('local mode: every prompt edit is decoded', () => {
  it('a click decodes once and lands its candidates on the prompt, the engine’s answer (listed first) selected', async () => {
    const run = s.scheduler.promptEdited(click(100, 120));
    expect(prompt().status).toBe('pending');
    expect(s.decoder.calls).toHaveLength(1);
    expect(s.decoder.calls[0].prompt.points).toEqual([{ x: 100, y: 120, positive: true }]);
    expect(s.decoder.calls[0].options).toEqual({ multimask: true, tolerance: 1, mirrorAverage: false }); // one look on the click: the pause brings the rule
    s.decoder.calls[0].answer([squareCandidate(10, 0.5), squareCandidate(12, 0.8)]);
    await run;
    expect(prompt().status).toBe('done');
    expect(areas()).toEqual([100, 144]);
    expect(prompt().selected).toBe(0);
  });

  it('a stale decode result never overwrites a newer revision; undo shows the older answer', async () => {
    const first = s.scheduler.promptEdited(click(100, 120));
    const second = s.scheduler.promptEdited(click(200, 150));
    expect(s.decoder.calls).toHaveLength(2);
    s.decoder.calls[1].answer([squareCandidate(20)]);
    await second;
    s.decoder.calls[0].answer([squareCandidate(10)]);
    await first;
    expect(prompt().points).toHaveLength(2);
    expect(areas()).toEqual([400]);
    studio.undo();
    expect(prompt().points).toHaveLength(1);
    expect(areas()).toEqual([100]);
  });

  it('a further click refines the selected mask: its logits go back in, one candidate is asked for', async () => {
    const first = s.scheduler.promptEdited(click(100, 120));
    s.decoder.calls[0].answer([squareCandidate(10)]);
    await first;
    void s.scheduler.promptEdited(click(150, 130, false));
    expect(s.decoder.calls[1].prompt.maskInput).toEqual(new Float32Array([10]));
    expect(s.decoder.calls[1].options.multimask).toBe(false);
  });

  it('says the image is being analysed when its embedding is not ready yet', () => {
    s.decoder.embedded = false;
    void s.scheduler.promptEdited(click(100, 120));
    expect(prompt().message).toBe(EMBEDDING_FIRST);
  });

  it('a failed decode is shown on the prompt', async () => {
    const run = s.scheduler.promptEdited(click(100, 120));
    s.decoder.calls[0].fail(new Error('worker gone'));
    await run;
    expect(prompt().status).toBe('error');
    expect(prompt().message).toBe('worker gone');
  });
});

describe('hover preview and the click that follows it', () => {
  it('a click at the rested hover spot reuses the hover decode instead of decoding again', async () => {
    s.scheduler.hoverAt(IMAGE.id, [300, 200]);
    s.clock.advance(HOVER_REST_MS);
    expect(s.decoder.calls).toHaveLength(1);
    const run = s.scheduler.promptEdited(click(300.4, 199.6));
    expect(s.decoder.calls).toHaveLength(1);
    s.decoder.calls[0].answer([squareCandidate(30)]);
    await run;
    expect(areas()).toEqual([900]);
  });

  it('a click elsewhere, or of the other label, decodes anew', () => {
    s.scheduler.hoverAt(IMAGE.id, [300, 200]);
    s.clock.advance(HOVER_REST_MS);
    void s.scheduler.promptEdited(click(310, 200));
    expect(s.decoder.calls).toHaveLength(2);
    expect(s.decoder.calls[1].prompt.points).toEqual([{ x: 310, y: 200, positive: true }]);
  });

  it('when the hover decode failed, the click decodes for itself', async () => {
    s.scheduler.hoverAt(IMAGE.id, [300, 200]);
    s.clock.advance(HOVER_REST_MS);
    const run = s.scheduler.promptEdited(click(300, 200));
    s.decoder.calls[0].fail(new Error('preview dropped'));
    await settled();
    expect(s.decoder.calls).toHaveLength(2);
    s.decoder.calls[1].answer([squareCandidate(8)]);
    await run;
    expect(areas()).toEqual([64]);
  });
});

describe('the mask is drawn before its polygons', () => {
  const MASK = { width: 2, height: 1, data: new Uint8Array([1, 0]) };

  it('a click shows the decoder’s mask while the outlines are traced; the polygons replace it', async () => {
    const edit = click(100, 120);
    const run = s.scheduler.promptEdited(edit);
    s.decoder.calls[0].mask(MASK);
    expect(s.early.current).toEqual({ imageId: IMAGE.id, revision: edit.revision, mask: MASK });
    expect(prompt().status).toBe('pending');
    expect(prompt().candidates).toEqual([]);
    s.decoder.calls[0].answer([squareCandidate(10)]);
    await run;
    expect(areas()).toEqual([100]);
    expect(s.early.current).toBeNull();
  });

  it('a click at the rested hover spot shows the hover decode’s mask, without a second decode', async () => {
    s.scheduler.hoverAt(IMAGE.id, [300, 200]);
    s.clock.advance(HOVER_REST_MS);
    const edit = click(300, 200);
    const run = s.scheduler.promptEdited(edit);
    expect(s.decoder.calls).toHaveLength(1);
    s.decoder.calls[0].mask(MASK);
    await settled();
    expect(s.early.current).toEqual({ imageId: IMAGE.id, revision: edit.revision, mask: MASK });
    s.decoder.calls[0].answer([squareCandidate(30)]);
    await run;
    expect(areas()).toEqual([900]);
    expect(s.early.current).toBeNull();
  });

  it('an early mask for a revision the prompt has left is not drawn', async () => {
    const first = s.scheduler.promptEdited(click(100, 120));
    const second = click(200, 150);
    const run = s.scheduler.promptEdited(second);
    s.decoder.calls[0].mask(MASK);
    expect(s.early.shown).toEqual([]);
    s.decoder.calls[1].mask(MASK);
    expect(s.early.current?.revision).toBe(second.revision);
    s.decoder.calls[0].answer([squareCandidate(10)]);
    await first;
    // The older answer's end leaves the newer early mask in place.
    expect(s.early.current?.revision).toBe(second.revision);
    s.decoder.calls[1].answer([squareCandidate(20)]);
    await run;
    expect(s.early.current).toBeNull();
  });
});

describe('the mirror pass when the user pauses', () => {
  beforeEach(() => {
    s.settings.mirrorPass = true;
  });

  async function answeredClick(x: number, y: number, ...candidates: ReturnType<typeof squareCandidate>[]) {
    const run = s.scheduler.promptEdited(click(x, y));
    s.decoder.calls[s.decoder.calls.length - 1].answer(candidates);
    await run;
  }

  it('after a pause the same prompt is decoded with mirror averaging; its answer replaces the quick one and the next click continues from it', async () => {
    await answeredClick(100, 120, squareCandidate(10));
    s.clock.advance(MIRROR_PASS_PAUSE_MS - 1);
    expect(s.decoder.mirrorPasses).toHaveLength(0);
    s.clock.advance(1);
    expect(s.decoder.mirrorPasses).toHaveLength(1);
    expect(s.decoder.mirrorPasses[0].prompt).toEqual(s.decoder.calls[0].prompt);
    expect(s.decoder.mirrorPasses[0].options).toEqual(s.decoder.calls[0].options);
    s.decoder.mirrorPasses[0].answer([squareCandidate(12)]);
    await settled();
    expect(areas()).toEqual([144]);
    expect(prompt().mirrorPassed).toBe(true);
    void s.scheduler.promptEdited(click(150, 130, false));
    expect(s.decoder.calls[1].prompt.maskInput).toEqual(new Float32Array([12]));
    expect(prompt().mirrorPassed).toBe(false);
  });

  it('a click before the pause is over means no pass for the answer it replaces', async () => {
    await answeredClick(100, 120, squareCandidate(10));
    s.clock.advance(MIRROR_PASS_PAUSE_MS / 2);
    void s.scheduler.promptEdited(click(150, 130));
    s.clock.advance(MIRROR_PASS_PAUSE_MS);
    expect(s.decoder.mirrorPasses).toHaveLength(0);
  });

  it('a pass that answers after a new click, or after the user picked another candidate, changes nothing', async () => {
    await answeredClick(100, 120, squareCandidate(10, 0.8), squareCandidate(12, 0.5));
    s.clock.advance(MIRROR_PASS_PAUSE_MS);
    studio.selectCandidate(IMAGE.id, 1);
    s.decoder.mirrorPasses[0].answer([squareCandidate(20)]);
    await settled();
    expect(areas()).toEqual([100, 144]);
    expect(prompt().selected).toBe(1);
    expect(prompt().mirrorPassed).toBeFalsy();

    const second = s.scheduler.promptEdited(click(150, 130));
    s.decoder.calls[1].answer([squareCandidate(14)]);
    await second;
    s.clock.advance(MIRROR_PASS_PAUSE_MS);
    void s.scheduler.promptEdited(click(160, 130));
    s.decoder.mirrorPasses[1].answer([squareCandidate(30)]);
    await settled();
    expect(prompt().points).toHaveLength(3);
    expect(prompt().candidates).toEqual([]);
  });

  it('a hover decode made before the pass landed is not reused by a click after it: the click continues from the averaged mask', async () => {
    await answeredClick(100, 120, squareCandidate(10));
    s.scheduler.hoverAt(IMAGE.id, [300, 200]);
    s.clock.advance(HOVER_REST_MS);
    expect(s.decoder.calls[1].prompt.maskInput).toEqual(new Float32Array([10]));
    s.decoder.calls[1].answer([squareCandidate(11)]);
    s.clock.advance(MIRROR_PASS_PAUSE_MS);
    s.decoder.mirrorPasses[0].answer([squareCandidate(12)]);
    await settled();
    void s.scheduler.promptEdited(click(300, 200));
    expect(s.decoder.calls).toHaveLength(3);
    expect(s.decoder.calls[2].prompt.maskInput).toEqual(new Float32Array([12]));
  });

  it('a failed pass leaves the quick answer; with the pass switched off (Server start) none is asked', async () => {
    await answeredClick(100, 120, squareCandidate(10));
    s.clock.advance(MIRROR_PASS_PAUSE_MS);
    s.decoder.mirrorPasses[0].fail(new Error('photo evicted'));
    await settled();
    expect(areas()).toEqual([100]);
    expect(prompt().status).toBe('done');

    s.settings.mirrorPass = false;
    await answeredClick(150, 130, squareCandidate(12));
    s.clock.advance(MIRROR_PASS_PAUSE_MS);
    expect(s.decoder.mirrorPasses).toHaveLength(1);
  });
});

describe('remote mode: a credit is spent only on Segment', () => {
  beforeEach(() => {
    s.settings.mode = 'remote';
  });

  it('remote mode does not run inference on click, nor on hover', () => {
    void s.scheduler.promptEdited(click(100, 120));
    s.scheduler.hoverAt(IMAGE.id, [100, 120]);
    s.clock.advance(HOVER_REST_MS);
    expect(s.decoder.calls).toHaveLength(0);
    expect(s.remoteKeys).toHaveLength(0);
    expect(prompt().status).toBe('idle');
    expect(s.preview.preview).toBeNull();
  });

  it('without an API key Segment explains what to do and calls nothing', async () => {
    s.settings.remote = { baseUrl: '', apiKey: '' };
    click(100, 120);
    await s.scheduler.runRemote(IMAGE.id);
    expect(prompt().message).toBe(NEEDS_API_KEY);
    expect(s.remoteKeys).toHaveLength(0);
  });

  it('Segment again after a dropped connection replays the same Idempotency-Key; an answer frees it', async () => {
    click(100, 120);
    s.remoteAnswers.push(() => Promise.reject(new RemoteCallError('The connection dropped', 'network-error', null)));
    await s.scheduler.runRemote(IMAGE.id);
    expect(prompt().status).toBe('error');
    s.remoteAnswers.push(async () => ({ candidates: [], requestId: 'req-1', refunded: true }));
    await s.scheduler.rerun(IMAGE.id);
    expect(prompt().message).toBe('No mask found for this prompt — the credit was refunded (request req-1).');
    s.remoteAnswers.push(() => Promise.reject(new RemoteCallError('Not enough credits', 402, 'req-2')));
    await s.scheduler.runRemote(IMAGE.id);
    expect(s.remoteKeys[1]).toBe(s.remoteKeys[0]);
    expect(s.remoteKeys[2]).not.toBe(s.remoteKeys[1]);
    expect(s.finished.count).toBe(3);
    expect(currentDocument().prompts[IMAGE.id].revision).toBe(prompt().revision);
  });
});
