/**
 * The detector runs of the photos a person is about to decide on, made ahead on a worker other than
 * the click worker. Without them the first decision on a photo waits for four detector runs (seconds)
 * in the click worker; running them there ahead of time would hold up the next click just as long,
 * since that worker runs one request at a time. A description of the photo takes its run (waiting for
 * it while it is under way); a run that failed leaves the click worker to run the detectors, as before.
 *
 * When a photo's runs start is decided here too (prepareAfterAnswer), so the studio's engine session
 * and the learning-step benchmark follow one rule and a change to it changes what is timed.
 */
import type { EngineApi } from '../../engine/service/api';
import { PHOTO_CONTEXTS_KEPT } from '../../engine/learn/photoContexts';
import type { DetectorRun } from '../../engine/text/detector';
import type { RgbaImage } from '../../engine/types';

export class PreparedDetectorRuns {
  private readonly runs = new Map<string, Promise<DetectorRun | undefined>>();
  /** Photos whose runs are wanted, waiting for an answer on them to land, with how to get their pixels. */
  private readonly waiting = new Map<string, () => RgbaImage | Promise<RgbaImage>>();

  /** `kept`: as many photos as the engine keeps the context of, a few MB each (the backbone map). */
  constructor(
    private readonly helper: () => Promise<Pick<EngineApi, 'detectForDescriptors'>>,
    private readonly kept = PHOTO_CONTEXTS_KEPT,
  ) {}

  has(imageId: string): boolean {
    return this.runs.has(imageId);
  }

  /**
   * Starts the photo's detector runs on the helper worker once `image` is there, once per photo. A
   * description asked for meanwhile waits for them rather than run the detectors a second time.
   */
  prepare(imageId: string, image: RgbaImage | Promise<RgbaImage>): void {
    if (this.runs.has(imageId)) return;
    // The helper starts once the pixels are there: not beside the photo's encoder run, which they wait for.
    const run = Promise.resolve(image).then(async (pixels) => (await this.helper()).detectForDescriptors({ image: pixels }));
    this.keep(imageId, run.catch(() => undefined));
  }

  /**
   * The photo's runs are wanted ahead of the person's first decision on it: they start once the next
   * answer on it (a click's mask) has landed (`answered`). Started with the photo's embedding, they took
   * a core from the photo's first click, the one a person waits for most.
   */
  prepareAfterAnswer(imageId: string, image: () => RgbaImage | Promise<RgbaImage>): void {
    if (this.runs.has(imageId)) return;
    this.waiting.set(imageId, image);
  }

  /** An answer on the photo landed in the click worker: its runs start if they were waiting for one. */
  answered(imageId: string): void {
    const image = this.waiting.get(imageId);
    if (!image) return;
    this.waiting.delete(imageId);
    this.prepare(imageId, image());
  }

  /**
   * A description of the photo in the click worker, given the photo's prepared run when there is one
   * (waited for while under way); afterwards the click worker holds the photo's context, so none is made.
   */
  async describing<T>(imageId: string, describe: (detectorRun: DetectorRun | undefined) => Promise<T>): Promise<T> {
    const answer = await describe(await this.of(imageId));
    this.described(imageId);
    return answer;
  }

  /** The click worker described the photo without a prepared run, so it holds the photo's context: none is made for it. */
  described(imageId: string): void {
    if (!this.runs.has(imageId)) this.keep(imageId, Promise.resolve(undefined));
  }

  private keep(imageId: string, run: Promise<DetectorRun | undefined>): void {
    this.runs.set(imageId, run);
    for (const oldest of this.runs.keys()) {
      if (this.runs.size <= this.kept) break;
      this.runs.delete(oldest);
    }
  }

  /** The photo's prepared run, awaited while under way; undefined when none was asked for or it failed. */
  of(imageId: string): Promise<DetectorRun | undefined> {
    return this.runs.get(imageId) ?? Promise.resolve(undefined);
  }

  forget(imageId?: string): void {
    if (imageId === undefined) {
      this.runs.clear();
      this.waiting.clear();
    } else {
      this.runs.delete(imageId);
      this.waiting.delete(imageId);
    }
  }
}
