import { paidCallRefusal } from '../remote/payer';
import { LIMITS } from '../../contract';
import type { Vertex } from '../../engine/types';
import { polygonsToOriginal, uploadScaleFor } from '../geometry/uploadScale';
import { encodeForUpload } from '../images/imageLibrary';
import { ACCOUNT_QUERY, queryClient } from '../queryClient';
import type { ImageEntry, Annotation } from '../../annotations/annotation';
import type { RemoteSettings } from '../state/remoteSettingsStore';
import { RemoteCallError, remoteSegment } from '../remote/remoteClient';
import type { PromptOutcome } from './textOutcomes';
import { UnsettledKeys } from './unsettledKeys';
import { proposedBy } from '../../annotations/review';

/**
 * The seam for text prompts: the server (POST /api/v1/segment, paid) in Remote mode, the engine
 * worker (`localText.ts`, free) in Local mode. The panel does not care which one answers.
 */
export interface TextSegmentation {
  readonly objects: ReadonlyArray<Omit<Annotation, 'color' | 'id'>>;
  readonly requestId: string | null;
  readonly refunded: boolean;
  /** Per prompt, in order: known or not, found or not (local runs; the server does not say). */
  readonly outcomes?: readonly PromptOutcome[];
}

export interface TextSegmenter {
  readonly runsOn: 'server' | 'browser';
  segment(image: ImageEntry, prompts: readonly string[], onWaiting?: (message: string) => void): Promise<TextSegmentation>;
}

/** Pressing the text button again after a dropped connection replays the same Idempotency-Key. */
const unsettledKeys = new UnsettledKeys();

export function remoteTextSegmenter(remote: RemoteSettings): TextSegmenter {
  return {
    runsOn: 'server',
    async segment(image, prompts, onWaiting) {
      if (!remote.apiKey) throw new Error('Text prompts run on the server: paste an API key in Remote settings, or generate one on the API keys page.');
      const refusal = await paidCallRefusal(remote).catch(() => null);
      if (refusal) throw new Error(refusal);
      const scale = uploadScaleFor(image.width, image.height, LIMITS.recommendedMaxSide);
      const action = `${image.id}\u0000${prompts.join('\u0000')}`;
      try {
        const result = await remoteSegment(
          remote,
          { image: await encodeForUpload(image.id, scale), prompts: [...prompts] },
          { idempotencyKey: unsettledKeys.keyFor(action), onWaiting: (reason, seconds) => onWaiting?.(`${reason} (${Math.ceil(seconds)} s)…`) },
        );
        unsettledKeys.succeeded(action);
        const receipt = { requestId: result.requestId, refunded: result.refunded };
        const objects = result.data.prompt_results.flatMap((r) =>
          r.predictions.map((p) => ({
            label: p.label || r.echo.text,
            confidence: p.confidence,
            visible: true,
            polygons: polygonsToOriginal(p.masks.map((ring) => ({ outer: ring as Vertex[], holes: [] })), scale),
            source: 'text' as const,
            review: proposedBy('text-prompt'),
            receipt,
          })),
        );
        return { objects, requestId: result.requestId, refunded: result.refunded };
      } catch (error) {
        unsettledKeys.failed(action, error);
        if (error instanceof RemoteCallError && error.requestId) throw new Error(`${error.message} (request ${error.requestId})`);
        throw error;
      } finally {
        void queryClient.invalidateQueries({ queryKey: ACCOUNT_QUERY });
      }
    },
  };
}
