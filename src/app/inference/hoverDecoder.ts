import type { BinaryMask, PolygonWithHoles, Vertex } from '../../engine/types';
import type { LocalCandidate } from './engineSession';
import { localDecodeRequest, selectedLogits } from './localDecodeRequest';
import { decodeKeyOf, type RestedDecode } from './restedDecode';
import type { HoverPreviewSink, LocalDecoder, PromptDocument, SchedulerClock, SchedulerSettings } from './schedulerPorts';

/**
 * How long the cursor must stay put before its spot is decoded. A decode cannot be cancelled once
 * started, so decoding spots the cursor only passes over would make the spot where it comes to rest
 * (and the click that usually follows there) wait behind them.
 */
export const HOVER_REST_MS = 40;

interface HoverTarget {
  readonly imageId: string;
  readonly at: Vertex;
  readonly revision: number;
}

/**
 * The live preview under the resting cursor (local mode, point tools only: remote calls cost
 * credits). A spot is decoded once the cursor has stayed on it for HOVER_REST_MS; at most one decode
 * in flight, the latest resting spot wins; an answer for a cursor or revision that has moved on is
 * dropped. Each decode asks exactly what a click there would, and is remembered in `rested` so that
 * click can reuse it.
 */
export class HoverDecoder {
  private target: HoverTarget | null = null;
  /** The target the cursor is resting on long enough to decode (null while it moves). */
  private rested: HoverTarget | null = null;
  private inFlight = false;
  private cancelWait: (() => void) | null = null;

  constructor(
    private readonly deps: {
      readonly document: Pick<PromptDocument, 'prompt'>;
      readonly decoder: LocalDecoder;
      readonly settings: () => SchedulerSettings;
      readonly preview: HoverPreviewSink;
      readonly clock: SchedulerClock;
      readonly rested: RestedDecode<LocalCandidate[]>;
      /** The same decode's early mask (before its outlines), for the click that reuses it. */
      readonly restedMask: RestedDecode<BinaryMask>;
    },
  ) {}

  /** The cursor rests at `at` on the image (null: it left, or the tool stopped hovering). */
  at(imageId: string, at: Vertex | null): void {
    const { mode, tool } = this.deps.settings();
    if (!at || mode !== 'local' || (tool !== 'positive' && tool !== 'negative') || !this.deps.decoder.isEmbedded(imageId)) {
      this.stop();
      return;
    }
    const target = { imageId, at, revision: this.deps.document.prompt(imageId).revision };
    this.target = target;
    this.cancelWait?.();
    this.cancelWait = this.deps.clock.later(() => {
      this.cancelWait = null;
      this.rested = target;
      this.pump();
    }, HOVER_REST_MS);
  }

  /** Forgets the cursor and hides the preview (the cursor left, the tool or the mode switched). */
  stop(): void {
    this.target = null;
    this.rested = null;
    this.cancelWait?.();
    this.cancelWait = null;
    this.hidePreview();
  }

  /** Hides the preview but keeps following the cursor (a click just made it the prompt). */
  hidePreview(): void {
    if (this.deps.preview.current()) this.deps.preview.show(null);
  }

  private pump(): void {
    const target = this.rested;
    if (this.inFlight || !target || target !== this.target) return;
    this.rested = null;
    const { settings, document, decoder, rested, restedMask, preview } = this.deps;
    const prompt = document.prompt(target.imageId);
    const { tool, tolerance } = settings();
    const positive = tool === 'positive';
    const points = [...prompt.points, { x: target.at[0], y: target.at[1], positive }];
    // Negative points alone select nothing: no preview until something is included.
    if (!points.some((p) => p.positive !== false) && !prompt.box) return;
    this.inFlight = true;
    const request = localDecodeRequest({ points, box: prompt.box }, selectedLogits(prompt), tolerance);
    let maskArrived: (mask: BinaryMask) => void = () => undefined;
    const mask = new Promise<BinaryMask>((resolve) => (maskArrived = resolve));
    const decode = decoder.predict(target.imageId, request.prompt, request.options, (m) => maskArrived(m));
    const key = decodeKeyOf(target.imageId, target.revision, points[points.length - 1], request);
    rested.remember(key, decode);
    restedMask.remember(key, mask);
    decode
      .then((candidates) => {
        const current = this.target;
        const promptMovedOn = document.prompt(target.imageId).revision !== target.revision;
        if (!current || current.imageId !== target.imageId || current.revision !== target.revision || promptMovedOn) return;
        const best = candidates.reduce<PolygonWithHoles[] | null>((found, c) => found ?? c.polygons, null);
        preview.show(best ? { imageId: target.imageId, polygons: best } : null);
      })
      .catch(() => undefined)
      .finally(() => {
        this.inFlight = false;
        // The cursor came to rest elsewhere while this decode ran.
        this.pump();
      });
  }
}
