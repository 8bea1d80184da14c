import { LIMITS } from '../../contract';
import type { Vertex } from '../../engine/types';
import { paidCallRefusal } from '../remote/payer';
import { polygonsToOriginal, scaleBox, scalePoint, uploadScaleFor } from '../geometry/uploadScale';
import { encodeForUpload } from '../images/imageLibrary';
import { ACCOUNT_QUERY, queryClient } from '../queryClient';
import type { Candidate } from '../state/model';
import { remotePvs } from '../remote/remoteClient';
import type { RemoteSegmenter } from './schedulerPorts';

/**
 * The metered API as the scheduler's remote segmenter: the photo goes up scaled to the API's
 * recommended size (a scaled upload gets its own imageId), the answer's polygons come back to the
 * photo's own pixels.
 */
export const apiSegmenter: RemoteSegmenter = {
  refusal: paidCallRefusal,
  async segment({ image, prompt, settings, idempotencyKey, onWaiting }) {
    const scale = uploadScaleFor(image.width, image.height, LIMITS.recommendedMaxSide);
    const body = {
      image: await encodeForUpload(image.id, scale),
      points: prompt.points.length ? prompt.points.map((p) => ({ ...scalePoint(p, scale), positive: p.positive !== false })) : undefined,
      box: prompt.box ? scaleBox(prompt.box, scale) : undefined,
      imageId: scale === 1 ? image.id : `${image.id}@${Math.round(scale * 1000)}`,
      multimaskOutput: true,
    };
    const result = await remotePvs(settings, body, { idempotencyKey, onWaiting });
    const receipt = { requestId: result.requestId, refunded: result.refunded };
    const predictions = result.data.prompts[0]?.predictions ?? [];
    const candidates: Candidate[] = predictions.map((p) => ({
      polygons: polygonsToOriginal(
        p.masks.map((ring) => ({ outer: ring as Vertex[], holes: [] })),
        scale,
      ),
      score: p.confidence,
      area: 0,
      receipt,
    }));
    return { candidates, requestId: result.requestId, refunded: result.refunded };
  },
  finished: () => void queryClient.invalidateQueries({ queryKey: ACCOUNT_QUERY }),
};
