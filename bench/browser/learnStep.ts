/**
 * Browser side of bench/learnStep.ts: the studio's SessionLearner on this page's main thread, its
 * descriptors from our engine worker, taught one decision at a time as a person makes them (a box
 * accepted in a class, or a region rejected). Each step is timed from the decision to the model
 * updated, split into its parts: the worker's descriptor call (embedding lookup, detector runs,
 * pooling), the fit, and what the studio does next on the page to keep the model (its stored form,
 * as the session store and a server project's write take it).
 */
import type { Annotation } from '../../src/annotations/annotation';
import type { RegionDescriptor } from '../../src/engine/learn/descriptors';
import { LearnedClasses } from '../../src/engine/learn/learnedClasses';
import type { RgbaImage } from '../../src/engine/types';
import { startEngineWorker, type EngineWorker } from '../../src/engine/worker/client';
import { emptyDocument, type StudioDocument } from '../../src/app/state/model';
import { SessionLearner } from '../../src/app/learn/sessionLearner';

export interface LearnStepSample {
  /** Decision → model updated (the learner's pass, descriptor call included). */
  stepMs: number;
  /** The worker's descriptor call as the page waits for it, and the worker's own stages. */
  describeMs: number;
  workerDetectMs: number;
  workerEmbedMs: number;
  workerPoolMs: number;
  /** The learning arithmetic (SessionLearner.stepMs). */
  fitMs: number;
  /** The stored form the session keeps, and the JSON a server project's write sends: main-thread time. */
  storedFormMs: number;
  stringifyMs: number;
  storedBytes: number;
  /** The longest main-thread task seen during the step and its save (Long Tasks API, ≥ 50 ms; 0 if none). */
  longestTaskMs: number;
  examples: number;
}

const CLASS = { id: 1, name: 'raccoon', color: '#aa5500' };

export function learnStepApi(loadRgba: (url: string) => Promise<RgbaImage>) {
  let client: EngineWorker | undefined;
  let learner: SessionLearner | undefined;
  let doc: StudioDocument = { ...emptyDocument(), classes: [CLASS] };
  const photos = new Map<string, { image: RgbaImage; imageKey: string }>();
  const worker = { embedMs: 0, detectMs: 0, describeMs: 0, pageMs: 0 };
  let longTasks: number[] = [];
  const seen: RegionDescriptor[] = [];
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) longTasks.push(entry.duration);
  }).observe({ type: 'longtask', buffered: false });

  const describe = async (imageId: string, masks: readonly { width: number; height: number; data: Uint8Array }[]): Promise<RegionDescriptor[]> => {
    const photo = photos.get(imageId);
    if (!photo || !client) throw new Error(`photo ${imageId} not embedded`);
    const t0 = performance.now();
    const answer = await client.api.describeRegions({ image: photo.image, imageId: photo.imageKey, masks: [...masks] });
    worker.pageMs += performance.now() - t0;
    worker.embedMs += answer.timings.embedMs;
    worker.detectMs += answer.timings.detectMs;
    worker.describeMs += answer.timings.describeMs;
    seen.push(...answer.descriptors);
    return answer.descriptors;
  };

  return {
    async start(): Promise<{ backend: string }> {
      client = await startEngineWorker({});
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
      doc = { ...doc, images: [...doc.images, { id: url, name: url, width: image.width, height: image.height }] };
      return { embedMs: performance.now() - t0, width: image.width, height: image.height };
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
      Object.assign(worker, { embedMs: 0, detectMs: 0, describeMs: 0, pageMs: 0 });
      longTasks = [];
      const fitsBefore = learner.stepMs.length;
      const t0 = performance.now();
      await learner.learnPending();
      const stepMs = performance.now() - t0;
      const fitMs = learner.stepMs.slice(fitsBefore).reduce((a, b) => a + b, 0);
      const t1 = performance.now();
      const stored = learner.learnedModel();
      const t2 = performance.now();
      const json = JSON.stringify(stored.model);
      const t3 = performance.now();
      // Lets the Long Tasks observer report the step's tasks.
      await new Promise((r) => setTimeout(r, 0));
      return {
        stepMs,
        describeMs: worker.pageMs,
        workerDetectMs: worker.detectMs,
        workerEmbedMs: worker.embedMs,
        workerPoolMs: worker.describeMs,
        fitMs,
        storedFormMs: t2 - t1,
        stringifyMs: t3 - t2,
        storedBytes: json.length,
        longestTaskMs: Math.max(0, ...longTasks),
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
