import type { BinaryMask, PointPrompt, Vertex } from '../../engine/types';
import { hasPrompt, type PromptState } from '../state/model';
import { HoverDecoder } from './hoverDecoder';
import type { LocalCandidate } from './engineSession';
import { localDecodeRequest, selectedLogits } from './localDecodeRequest';
import { RemoteCallError } from '../remote/remoteClient';
import { MirrorPass } from './mirrorPass';
import { decodeKeyOf, RestedDecode } from './restedDecode';
import { realClock, type EarlyMaskSink, type HoverPreviewSink, type LocalDecoder, type PromptDocument, type RemoteSegmenter, type SchedulerClock, type SchedulerSettings } from './schedulerPorts';
import { UnsettledKeys } from './unsettledKeys';

/** A prompt edit just written to the document (see promptEdits.ts). */
export interface PromptEdit {
  readonly imageId: string;
  /** The prompt just before the edit (after a refinement began): its revision keys the rested decode. */
  readonly before: PromptState;
  /** The edit's new revision: only answers for it land. */
  readonly revision: number;
  /** The point the edit added; absent for a box. */
  readonly point?: PointPrompt;
}

export const NEEDS_API_KEY = 'Remote mode needs an API key: paste one in Remote settings, or generate one on the API keys page.';
export const EMBEDDING_FIRST = 'Analysing the image first (once per image)…';

/**
 * Decides when and where each prompt is answered. Local mode decodes after every edit (free, in the
 * worker), reusing the decode the resting cursor already started for that very click; remote mode
 * waits for the user's Segment press (each call costs a credit). Answers land by revision, so an
 * older answer never replaces a newer prompt's.
 */
export class InferenceScheduler {
  /** The hover decode asks exactly what a click there would, so the click can reuse its answer. */
  private readonly rested = new RestedDecode<LocalCandidate[]>();
  private readonly restedMask = new RestedDecode<BinaryMask>();
  private readonly hover: HoverDecoder;
  private readonly mirrorPass: MirrorPass;
  /** Pressing Segment again after a dropped connection replays the same Idempotency-Key. */
  private readonly unsettledKeys: UnsettledKeys;

  constructor(
    private readonly deps: {
      readonly document: PromptDocument;
      readonly decoder: LocalDecoder;
      readonly remote: RemoteSegmenter;
      readonly settings: () => SchedulerSettings;
      readonly preview: HoverPreviewSink;
      /** Where a local answer's mask is drawn before its polygons land. */
      readonly earlyMask?: EarlyMaskSink;
      readonly clock?: SchedulerClock;
      readonly unsettledKeys?: UnsettledKeys;
    },
  ) {
    this.unsettledKeys = deps.unsettledKeys ?? new UnsettledKeys();
    const clock = deps.clock ?? realClock;
    this.hover = new HoverDecoder({ ...deps, clock, rested: this.rested, restedMask: this.restedMask });
    this.mirrorPass = new MirrorPass({ ...deps, clock });
  }

  /** The cursor rests at `at` (null: it left the image). */
  hoverAt(imageId: string, at: Vertex | null): void {
    this.hover.at(imageId, at);
  }

  /** The tool or the mode changed: the preview no longer applies. */
  stopHover(): void {
    this.hover.stop();
  }

  /** A click or a box just changed the prompt. Resolves when the local answer has landed. */
  promptEdited(edit: PromptEdit): Promise<void> {
    this.hover.hidePreview();
    this.mirrorPass.stop();
    const { mode, tolerance } = this.deps.settings();
    if (mode !== 'local') return Promise.resolve();
    const { before, point } = edit;
    const key = point && decodeKeyOf(edit.imageId, before.revision, point, localDecodeRequest({ box: before.box, points: [...before.points, point] }, selectedLogits(before), tolerance));
    const rested = key && this.rested.take(key);
    const restedMask = key && this.restedMask.take(key);
    return this.runLocal(edit.imageId, edit.revision, selectedLogits(before), rested && { candidates: rested, mask: restedMask });
  }

  /** Answers the current prompt again (after switching mode, or a failure). */
  rerun(imageId: string): Promise<void> {
    const prompt = this.deps.document.prompt(imageId);
    if (!hasPrompt(prompt)) return Promise.resolve();
    return this.deps.settings().mode === 'local' ? this.runLocal(imageId, prompt.revision) : this.runRemote(imageId);
  }

  /**
   * `rested`: the decode the resting cursor already started for exactly this prompt (and its early
   * mask). The mask is drawn as soon as the decoder answers; the polygons replace it when traced.
   */
  private async runLocal(
    imageId: string,
    revision: number,
    previousLogits?: Float32Array,
    rested?: { candidates: Promise<LocalCandidate[]>; mask?: Promise<BinaryMask> },
  ): Promise<void> {
    const { document, decoder, settings, earlyMask } = this.deps;
    const prompt = document.prompt(imageId);
    if (prompt.revision !== revision || !hasPrompt(prompt)) return;
    document.markPending(imageId, revision, 'pending', decoder.isEmbedded(imageId) ? null : EMBEDDING_FIRST);
    let landed = false;
    const showEarly = (mask: BinaryMask) => {
      if (!landed && document.prompt(imageId).revision === revision) earlyMask?.show({ imageId, revision, mask });
    };
    try {
      const request = localDecodeRequest(prompt, previousLogits, settings().tolerance);
      const decode = () => decoder.predict(imageId, request.prompt, request.options, showEarly);
      rested?.mask?.then(showEarly, () => undefined);
      const candidates = rested ? await rested.candidates.catch(decode) : await decode();
      landed = true;
      document.resolve(imageId, revision, candidates);
      this.mirrorPass.landed({ imageId, revision, request, candidates: document.prompt(imageId).candidates });
    } catch (error) {
      landed = true;
      document.fail(imageId, revision, error instanceof Error ? error.message : String(error));
    } finally {
      earlyMask?.clear(imageId, revision);
    }
  }

  /** The paid call for the current prompt: the user pressed Segment. */
  async runRemote(imageId: string): Promise<void> {
    const { document, remote, settings } = this.deps;
    const image = document.image(imageId);
    const prompt = document.prompt(imageId);
    if (!image || !hasPrompt(prompt)) return;
    const remoteSettings = settings().remote;
    const revision = prompt.revision;
    if (!remoteSettings.apiKey) {
      document.fail(imageId, revision, NEEDS_API_KEY);
      return;
    }
    const refusal = await remote.refusal(remoteSettings).catch(() => null);
    if (refusal) {
      document.fail(imageId, revision, refusal);
      return;
    }
    document.markPending(imageId, revision, 'pending');
    const attempt = `${imageId}:${revision}`;
    try {
      const answer = await remote.segment({
        image,
        prompt,
        settings: remoteSettings,
        idempotencyKey: this.unsettledKeys.keyFor(attempt),
        onWaiting: (reason, seconds) => document.markPending(imageId, revision, 'waiting', `${reason} (${Math.ceil(seconds)} s)…`),
      });
      this.unsettledKeys.succeeded(attempt);
      const request = answer.requestId ? ` (request ${answer.requestId})` : '';
      document.resolve(imageId, revision, answer.candidates, `No mask found for this prompt${answer.refunded ? ' — the credit was refunded' : ''}${request}.`);
    } catch (error) {
      this.unsettledKeys.failed(attempt, error);
      document.fail(imageId, revision, remoteFailureMessage(error));
    } finally {
      remote.finished();
    }
  }
}

function remoteFailureMessage(error: unknown): string {
  if (error instanceof RemoteCallError && error.requestId) return `${error.message} (request ${error.requestId})`;
  return error instanceof Error ? error.message : String(error);
}
