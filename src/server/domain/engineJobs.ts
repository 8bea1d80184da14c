/**
 * What the server asks of a worker's engine, as EngineApi calls (src/engine/service/api.ts, the
 * interface the browser's worker serves too) and what the API answers from them. The parts that are
 * the server's own live here, not in the engine: the photo's pixels (decoded in this process,
 * DecodedPhotos), its embedding's private cache key, the wire answers of the spec, and the time spent
 * (Server-Timing `decode`, and `engine` as the engine reports it). A new engine capability is one more function here, calling
 * the new method; the pool, the fair queue and the worker thread stay as they are.
 */
import { EMBEDDING_ENCODING, type EmbeddingResponse, type EncoderIdentity } from '../../contract/embeddings';
import type { EverythingAnswer, PvsAnswer, SegmentAnswer } from '../../engine/answers';
import { quantizeEmbedding } from '../../engine/embeddingCodec';
import type { LearnedProposals } from '../../contract/learned';
import type { RegionDescriptor } from '../../engine/learn/descriptors';
import type { LearnedClassesState } from '../../engine/learn/learnedClasses';
import { DEFAULT_EVERYTHING_RULE, type EverythingRule } from '../../engine/everything/segmentEverything';
import { DETECTOR_SOURCE } from '../../engine/learn/proposeLearned';
import { segmentationOptions, type SegmentationOptions } from '../../engine/options';
import { outerRings } from '../../engine/polygons';
import type { EmbedResponse, EngineApi, PredictResponse } from '../../engine/service/api';
import type { BinaryMask, BoxPrompt, PointPrompt, PolygonWithHoles, RgbaImage } from '../../engine/types';
import type { EngineJob } from '../inference/pool';
import { timed, type Timings } from './timings';

/** The photo a job runs on: the key of its embedding in the workers' engines, and its pixels when a step needs them. */
export interface JobPhoto {
  readonly cacheKey: string;
  /** Whether the upload's file came with the call (a photo its payer had not sent before). */
  readonly withFile: boolean;
  /** The decoded photo (DecodedPhotos: decoded once, then kept); an ImageDecodeError when it does not decode. */
  pixels(): Promise<RgbaImage>;
}

/** The photo's pixels, their decode timed as `decode`. */
const pixelsOf = (photo: JobPhoto, timings?: Timings) => timed(timings, 'decode', () => photo.pixels());
/**
 * One engine call; `engine` gets the time the engine says it spent (`spent`), so the hand-over
 * between the threads stays in the call's `worker` time, as when the worker measured its own run.
 */
async function onEngine<T>(timings: Timings | undefined, call: () => Promise<T>, spent: (answer: T) => number): Promise<T> {
  const answer = await call();
  if (timings) timings.engine = (timings.engine ?? 0) + spent(answer);
  return answer;
}
const predictMs = ({ timings: t }: PredictResponse) => t.decoderMs + t.postprocessMs + t.polygonMs;
const embedMs = ({ timings: t }: EmbedResponse) => t.preprocessMs + t.encoderMs;

/** A job on `photo`'s embedding; `run` gets the engine of the worker the pool chose. */
function photoJob<R>(photo: JobPhoto, run: EngineJob<R>['run'], mirrored = false, decodesOnly = false): EngineJob<R> {
  return { embedding: { key: photo.cacheKey, mirrored }, decodesOnly, withFile: photo.withFile, run };
}

/** Outer rings of traced polygons, the API's masks (holes stay in the engine's representation). */
const ringsOf = (polygons: readonly PolygonWithHoles[]) => outerRings(polygons);

export interface PvsPrompt {
  points?: PointPrompt[];
  box?: BoxPrompt;
  /** From the request (`multimaskOutput` → `multimask`, `mirrorAverage`); the engine's defaults fill the rest. */
  options: Partial<SegmentationOptions>;
}

/**
 * A point or box prompt: a decoder run alone on a worker that holds the photo's embedding, no pixels
 * sent; otherwise (or when the guess was wrong) the photo embedded first. The answer's `imageId` is
 * the cache key; the caller names it as the client should see it.
 */
export function pvsJob(photo: JobPhoto, prompt: PvsPrompt, timings?: Timings): EngineJob<PvsAnswer> {
  const { mirrorAverage } = segmentationOptions(prompt.options);
  const request = { imageKey: photo.cacheKey, prompt: { points: prompt.points, box: prompt.box }, options: prompt.options };
  const run = async (engine: EngineApi, worker: { holdsEmbedding: boolean }): Promise<PvsAnswer> => {
    if (worker.holdsEmbedding) {
      try {
        return pvsAnswer(await onEngine(timings, () => engine.predict(request), predictMs), photo.cacheKey);
      } catch (error) {
        // A bad prompt stays bad; anything else means the engine let the embedding go: embed again.
        if (error instanceof Error && error.name === 'PromptError') throw error;
      }
    }
    const image = await pixelsOf(photo, timings);
    await onEngine(timings, () => engine.embed({ image, imageId: photo.cacheKey, mirrored: mirrorAverage }), embedMs);
    return pvsAnswer(await onEngine(timings, () => engine.predict(request), predictMs), photo.cacheKey);
  };
  return photoJob(photo, run, mirrorAverage, true);
}

function pvsAnswer(predicted: PredictResponse, imageId: string): PvsAnswer {
  const predictions = predicted.candidates.map((c) => ({ masks: ringsOf(c.polygons), confidence: c.score })).filter((p) => p.masks.length > 0);
  return { prompts: [{ predictions }], imageId };
}

/** Text prompts: every detector that knows a prompt's class, each box outlined by SAM. */
export function segmentJob(photo: JobPhoto, prompts: string[], timings?: Timings): EngineJob<SegmentAnswer> {
  return photoJob(photo, async (engine) => {
    const image = await pixelsOf(photo, timings);
    const { results } = await onEngine(timings, () => engine.segmentText({ image, prompts, imageId: photo.cacheKey }), (r) => r.timings.totalMs);
    return {
      prompt_results: results.map((r) => ({
        echo: { text: r.text },
        predictions: r.instances.map((t) => ({ label: t.label, confidence: t.confidence, masks: ringsOf(t.polygons) })).filter((p) => p.masks.length > 0),
      })),
    };
  });
}

/** Segment everything with `rule` (the interactive one unless bulk work asks for its own) and every detector of the worker. */
export function everythingJob(photo: JobPhoto, timings?: Timings, rule: EverythingRule = DEFAULT_EVERYTHING_RULE): EngineJob<EverythingAnswer> {
  return photoJob(photo, async (engine) => {
    const image = await pixelsOf(photo, timings);
    const { proposals } = await onEngine(timings, () => engine.segmentEverything({ image, imageId: photo.cacheKey, options: { rule } }), (r) => r.timings.totalMs);
    return {
      predictions: proposals
        .map((p) => ({
          confidence: Math.min(1, Math.max(0, p.confidence)),
          masks: ringsOf(p.polygons),
          source: p.source,
          ...(p.label === undefined ? {} : { label: p.label }),
        }))
        .filter((p) => p.masks.length > 0),
    };
  });
}

/** The photo's image embedding in its wire form (POST /api/v1/embeddings), `imageId` as the client sees it. */
export function embeddingJob(photo: JobPhoto, encoder: EncoderIdentity, imageId: string, timings?: Timings): EngineJob<EmbeddingResponse> {
  return photoJob(photo, async (engine) => {
    const image = await pixelsOf(photo, timings);
    await onEngine(timings, () => engine.embed({ image, imageId: photo.cacheKey }), embedMs);
    const record = await engine.exportEmbedding({ imageKey: photo.cacheKey });
    if (!record) throw new Error('the embedding left the cache before it could be read');
    if (record.model !== encoder.id) throw new Error(`the worker's encoder is ${record.model}, the server serves ${encoder.id}`);
    const { dims, scales, data } = quantizeEmbedding({ dims: record.dims, data: record.data });
    return {
      imageId,
      model: encoder,
      width: image.width,
      height: image.height,
      embedding: {
        dims,
        encoding: EMBEDDING_ENCODING,
        scales: Array.from(scales),
        data: Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString('base64'),
      },
    };
  });
}

/**
 * Region descriptors of masks on the photo (what learned classes learn from and classify,
 * src/engine/learn/): for the server's jobs, through the same pool and fair queue as every call.
 */
export function describeRegionsJob(photo: JobPhoto, masks: BinaryMask[], timings?: Timings): EngineJob<RegionDescriptor[]> {
  return photoJob(photo, async (engine) => {
    const image = await pixelsOf(photo, timings);
    const { descriptors } = await onEngine(timings, () => engine.describeRegions({ image, imageId: photo.cacheKey, masks }),
      ({ timings: t }) => t.embedMs + t.detectMs + t.describeMs,
    );
    return descriptors;
  });
}

/**
 * A `learned` job's image (issue 38): every instance of the project's learned classes on it, in the
 * wire form of contract/learned.ts (confidence within [0, 1], the detector's prior named `detector`).
 */
export function learnedJob(photo: JobPhoto, model: LearnedClassesState, classNames: Record<string, string>, timings?: Timings): EngineJob<LearnedProposals> {
  return photoJob(photo, async (engine) => {
    const image = await pixelsOf(photo, timings);
    const { proposals } = await onEngine(timings, () => engine.proposeLearned({ image, imageId: photo.cacheKey, model, classNames }), (r) => r.timings.totalMs);
    return {
      predictions: proposals
        .map((p) => ({
          classId: p.classId,
          confidence: Math.min(1, Math.max(0, p.probability)),
          source: p.source === DETECTOR_SOURCE ? ('detector' as const) : ('learned' as const),
          masks: ringsOf(p.polygons),
        }))
        .filter((p) => p.masks.length > 0),
    };
  });
}
