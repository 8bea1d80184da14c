import type { Candidate } from '../state/model';
import type { LocalDecodeRequest } from './localDecodeRequest';
import type { LocalDecoder, PromptDocument, SchedulerClock, SchedulerSettings } from './schedulerPorts';

/**
 * How long after an answer lands the user counts as pausing. Under this, a person has not yet taken
 * in the mask (perceiving it and deciding where to click next takes longer), so the next click
 * rarely comes sooner; and a click that does arrive waits behind at most one mirror pass.
 */
export const MIRROR_PASS_PAUSE_MS = 300;

/** A local answer as it landed: what it was decoded from, and the candidates it put on the prompt. */
export interface LandedAnswer {
  readonly imageId: string;
  readonly revision: number;
  readonly request: LocalDecodeRequest;
  readonly candidates: readonly Candidate[];
}


/**
 * The studio's mirror pass: once the user pauses on a local answer, the same prompt is decoded again
 * with mirror averaging (the engine's `mirrorAverage`, the rule the eval measures as
 * `mirror-average`) and its answer replaces the quick one. It costs twice the decoder (and once per
 * photo the mirror image's encoder run), so the click itself never waits for it; the next click
 * continues from the averaged mask, so after every pause the prompt is where the eval's rule puts it.
 */
export class MirrorPass {
  private cancelWait: (() => void) | null = null;

  constructor(
    private readonly deps: {
      readonly document: Pick<PromptDocument, 'prompt' | 'applyMirrorPass'>;
      readonly decoder: LocalDecoder;
      readonly settings: () => SchedulerSettings;
      readonly clock: SchedulerClock;
    },
  ) {}

  /** A local answer landed: give it the mirror pass once the user has paused on it. */
  landed(answer: LandedAnswer): void {
    this.stop();
    if (!this.deps.decoder.mirrorPass || !this.deps.settings().mirrorPass || answer.candidates.length === 0) return;
    this.cancelWait = this.deps.clock.later(() => {
      this.cancelWait = null;
      void this.run(answer);
    }, MIRROR_PASS_PAUSE_MS);
  }

  /** The prompt changed before the pause was over: the pass would answer a prompt that is gone. */
  stop(): void {
    this.cancelWait?.();
    this.cancelWait = null;
  }

  private async run(answer: LandedAnswer): Promise<void> {
    const { document, decoder } = this.deps;
    const { imageId, revision, request, candidates } = answer;
    const prompt = document.prompt(imageId);
    if (prompt.revision !== revision || prompt.candidates !== candidates) return;
    try {
      const averaged = await decoder.mirrorPass!(imageId, request.prompt, request.options);
      document.applyMirrorPass(imageId, revision, candidates, averaged);
    } catch {
      // The quick answer stands; a failed pass (say, the photo left the worker's cache) changes nothing.
    }
  }
}
