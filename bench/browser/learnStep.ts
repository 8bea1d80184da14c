/**
 * Browser side of bench/learnStep.ts: the studio's SessionLearner on this page's main thread, its
 * descriptors from our engine worker, taught one decision at a time as a person makes them (a box
 * accepted in a class, or a region rejected). Each step is timed from the decision to the model
 * updated, split into its parts: the worker's descriptor call (embedding lookup, detector runs,
 * pooling), the fit, and what the studio does next on the page to keep the model (its stored form,
 * as the session store and a server project's write take it). With `prefetch`, as in the studio,
 * a photo opened once something is learned has its detector runs made in a one-thread background
 * worker (PreparedDetectorRuns), and clicks made meanwhile time the click worker.
 */
import type { Annotation } from '../../src/annotations/annotation';
import type { RegionDescriptor } from '../../src/engine/learn/descriptors';
import { LearnedClasses } from '../../src/engine/learn/learnedClasses';
import type { DetectorRun } from '../../src/engine/text/detector';
import type { RgbaImage } from '../../src/engine/types';
import { startEngineWorker, type EngineWorker } from '../../src/engine/worker/client';
import { emptyDocument, type StudioDocument } from '../../src/app/state/model';
import { SessionLearner } from '../../src/app/learn/sessionLearner';
import { BACKGROUND_WORKER } from '../../src/app/inference/engineSession';
import { PreparedDetectorRuns } from '../../src/app/inference/preparedDetectorRuns';

export interface LearnStepSample {
  /** Decision → model updated (the learner's pass, descriptor call included). */
  stepMs: number;
  /** The worker's descriptor call as the page waits for it, and the worker's own stages. */
  describeMs: number;
  /** The worker described from the photo's earlier detector runs. */
  photoReused: boolean;
  /** The detector runs came made ahead by the background worker. */
  detectorsPrepared: boolean;
  /**
   * The worker making the photo's context: the detector runs, or with a prepared run only the photo's
   * SAM cells (the detectors ran in the background worker); 0 when the photo's context was kept.
   */
  workerDetectMs: number;
  workerEmbedMs: number;
  workerPoolMs: number;
  /** The learning arithmetic (SessionLearner.stepMs). */
  fitMs: number;
  /** The stored form the session keeps, and the JSON a server project's write sends: main-thread time. */
  storedFormMs: number;
  stringifyMs: number;
  storedBytes: number;
  /** What the page's main thread spends on the step and keeping the model (fit, stored form, JSON): the time a click could wait. */
  mainThreadMs: number;
  examples: number;
}

const CLASS = { id: 1, name: 'raccoon', color: '#aa5500' };

export function learnStepApi(loadRgba: (url: string) => Promise<RgbaImage>) {
  let client: EngineWorker | undefined;
  let learner: SessionLearner | undefined;
  let doc: StudioDocument = { ...emptyDocument(), classes: [CLASS] };
  const photos = new Map<string, { image: RgbaImage; imageKey: string }>();
  let prepared: PreparedDetectorRuns | undefined;
  // As the studio's EngineSession.prepareDescriptors: when the runs start is PreparedDetectorRuns' own rule.
  const prepare = (url: string): void => {
    const photo = photos.get(url);
    if (photo) prepared?.prepareAfterAnswer(url, () => photo.image);
  };
  const worker = { embedMs: 0, detectMs: 0, describeMs: 0, pageMs: 0, reused: false, prepared: false };
  const seen: RegionDescriptor[] = [];

  const describe = async (imageId: string, masks: readonly { width: number; height: number; data: Uint8Array }[]): Promise<RegionDescriptor[]> => {
    const photo = photos.get(imageId);
    if (!photo || !client) throw new Error(`photo ${imageId} not embedded`);
    const t0 = performance.now();
    const api = client.api;
    // As EngineSession.describeRegions: the photo's prepared run, when there is one, goes with the request.
    const request = (detectorRun?: DetectorRun) => api.describeRegions({ image: photo.image, imageId: photo.imageKey, masks: [...masks], ...(detectorRun ? { detectorRun } : {}) });
    const answer = prepared ? await prepared.describing(imageId, request) : await request();
    worker.pageMs += performance.now() - t0;
    worker.embedMs += answer.timings.embedMs;
    worker.detectMs += answer.timings.detectMs;
    worker.describeMs += answer.timings.describeMs;
    worker.reused = answer.timings.photoReused === true;
    worker.prepared = answer.timings.detectorsPrepared === true;
    seen.push(...answer.descriptors);
    return answer.descriptors;
  };

  return {
    async start(prefetch: boolean): Promise<{ backend: string }> {
      client = await startEngineWorker({});
      if (prefetch) {
        let background: Promise<EngineWorker> | undefined;
        prepared = new PreparedDetectorRuns(() => (background ??= startEngineWorker(BACKGROUND_WORKER)).then((w) => w.api));
      }
      learner = new SessionLearner({ document: () => doc, describe, reclass: () => undefined }, 0);
      return { backend: `${client.description.backend.name}, ${client.description.backend.threads} threads` };
    },
    /** The photo as the person opens it: embedded before they label anything (not part of a step). */
    async open(url: string): Promise<{ embedMs: number; width: number; height: number }> {
      if (!client) throw new Error('start() first');
      const image = await loadRgba(url);
      const t0 = performance.now();
      const { imageKey } = await client.api.embed({ image, imageId: url });
      photos.set(url, { image, imageKey });
      // The studio's rule: prepared once the session has learned something (prepareDescriptors).
      if (learner?.taughtClasses().length) prepare(url);
      doc = { ...doc, images: [...doc.images, { id: url, name: url, width: image.width, height: image.height }] };
      return { embedMs: performance.now() - t0, width: image.width, height: image.height };
    },
    /** A person clicking on the photo for `forMs` (one click after another): each click's time in the click worker. */
    async clicks(url: string, point: { x: number; y: number }, forMs: number): Promise<number[]> {
      const photo = photos.get(url);
      if (!photo || !client) throw new Error(`photo ${url} not embedded`);
      const times: number[] = [];
      const end = performance.now() + forMs;
      while (performance.now() < end) {
        const t0 = performance.now();
        await client.api.predict({ imageKey: photo.imageKey, prompt: { points: [point] }, options: { mirrorAverage: false } });
        times.push(performance.now() - t0);
        // As EngineSession.predict does once an answer has landed.
        prepared?.answered(url);
      }
      return times;
    },
    /** One decision: a box accepted as a raccoon (`positive`) or rejected; the learner learns it, then the studio keeps the model. */
    async decide(url: string, box: readonly [number, number, number, number], positive: boolean): Promise<LearnStepSample> {
      if (!learner) throw new Error('start() first');
      const id = `o${Object.values(doc.objects).flat().length}`;
      const object: Annotation = {
        id,
        kind: 'box',
        box: [...box],
        label: CLASS.name,
        classId: CLASS.id,
        confidence: 1,
        color: CLASS.color,
        visible: true,
        source: 'local',
        polygons: [],
        ...(positive ? {} : { review: { state: 'rejected', source: 'learned' } }),
      } as Annotation;
      doc = { ...doc, objects: { ...doc.objects, [url]: [...(doc.objects[url] ?? []), object] } };
      Object.assign(worker, { embedMs: 0, detectMs: 0, describeMs: 0, pageMs: 0, reused: false, prepared: false });
      const fitsBefore = learner.stepMs.length;
      const t0 = performance.now();
      await learner.learnPending();
      const stepMs = performance.now() - t0;
      // The studio's rule again: the photo on screen is prepared as soon as something is learned (after this timing).
      if (learner.taughtClasses().length) prepare(url);
      const fitMs = learner.stepMs.slice(fitsBefore).reduce((a, b) => a + b, 0);
      const t1 = performance.now();
      const stored = learner.learnedModel();
      const t2 = performance.now();
      const json = JSON.stringify(stored.model);
      const t3 = performance.now();
      return {
        stepMs,
        describeMs: worker.pageMs,
        photoReused: worker.reused,
        detectorsPrepared: worker.prepared,
        workerDetectMs: worker.detectMs,
        workerEmbedMs: worker.embedMs,
        workerPoolMs: worker.describeMs,
        fitMs,
        storedFormMs: t2 - t1,
        stringifyMs: t3 - t2,
        storedBytes: json.length,
        mainThreadMs: fitMs + (t3 - t1),
        examples: learner.classifier.examplesOf(CLASS.name),
      };
    },
    /**
     * A model at full capacity (every class and the background at their limits), from jittered copies
     * of the descriptors the worker gave so far: what keeping it costs the page, and its size.
     */
    fullCapacity(classes: number): { examples: number; storedFormMs: number; stringifyMs: number; storedBytes: number } {
      if (seen.length === 0) throw new Error('decide() first');
      const model = new LearnedClasses();
      const { maxPerClass, maxBackground } = model.toJSON().settings;
      let seed = 1;
      const jitter = () => ((seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31 - 0.5) * 0.02;
      const copy = (d: RegionDescriptor): RegionDescriptor =>
        Object.fromEntries(Object.entries(d).map(([kind, values]) => [kind, values.map((v) => v + jitter())])) as unknown as RegionDescriptor;
      const wanted = [...Array.from({ length: maxBackground }, () => null), ...Array.from({ length: classes }, (_, k) => Array.from({ length: maxPerClass }, () => `class ${k}`)).flat()];
      for (let i = 0; i < wanted.length; i += 500) model.learnAll(wanted.slice(i, i + 500).map((classId, j) => ({ descriptor: copy(seen[(i + j) % seen.length]), classId })));
      const t0 = performance.now();
      const state = model.toJSON();
      const t1 = performance.now();
      const json = JSON.stringify(state);
      const t2 = performance.now();
      return { examples: wanted.length, storedFormMs: t1 - t0, stringifyMs: t2 - t1, storedBytes: json.length };
    },
  };
}
