/**
 * Text prompts forwarded to a SAM-3-class HTTP server speaking Roboflow's `sam3/concept_segment`
 * wire format (as served by Roboflow's hosted API and by their open-source `inference` server):
 *
 *   POST {base}/sam3/concept_segment[?api_key=KEY]
 *   { "image": { "type": "base64", "value": "<base64>" },
 *     "prompts": [{ "type": "text", "text": "person" }, ...],
 *     "output_prob_thresh": 0.5, "format": "polygon" }
 *   → { "prompt_results": [{ "prompt_index": 0, "echo": { "prompt_index": 0, "type": "text", "text": "person" },
 *        "predictions": [{ "masks": [[[x, y], ...], ...], "confidence": 0.93, "format": "polygon" }] }],
 *      "time": 0.41 }
 *
 * Its answer is mapped to our SegmentAnswer (label = the prompt, which is the concept SAM 3 was
 * asked for). Every failure — network, timeout, non-2xx, a body that is not that shape, answers for
 * the wrong prompts — is an UpstreamError, which the server turns into the refund path.
 * Uses only `fetch`, so it runs in Node and in browsers alike.
 */
import { z } from 'zod';
import type { SegmentAnswer } from '../answers';

export class UpstreamError extends Error {
  override name = 'UpstreamError';
  constructor(
    message: string,
    /** HTTP status of the upstream answer, when there was one. */
    readonly status?: number,
  ) {
    super(message);
  }
}

const UpstreamPolygon = z.array(z.tuple([z.number(), z.number()]).or(z.array(z.number()).min(2)));
const UpstreamPrediction = z.object({
  masks: z.array(UpstreamPolygon),
  confidence: z.number(),
  format: z.string().optional(),
});
const UpstreamResponse = z.object({
  prompt_results: z.array(
    z.object({
      prompt_index: z.number().int().nonnegative(),
      echo: z.object({ text: z.string().nullish() }).passthrough().optional(),
      predictions: z.array(UpstreamPrediction),
    }),
  ),
  time: z.number().optional(),
});

export interface UpstreamOptions {
  /** TEXT_UPSTREAM_URL: the server's base URL, or the full `.../sam3/concept_segment` URL. */
  readonly url: string;
  /** Sent as the `api_key` query parameter (Roboflow's convention), if given. */
  readonly apiKey?: string;
  /** Masks below this probability are dropped by the upstream. Default 0.5 (Roboflow's example). */
  readonly outputProbThreshold?: number;
  /** Default 30 s. */
  readonly timeoutMs?: number;
  readonly fetch?: typeof fetch;
}

export const CONCEPT_SEGMENT_PATH = 'sam3/concept_segment';

export function conceptSegmentUrl(base: string, apiKey?: string): string {
  const url = new URL(base);
  if (!url.pathname.replace(/\/+$/, '').endsWith(CONCEPT_SEGMENT_PATH)) {
    url.pathname = `${url.pathname.replace(/\/+$/, '')}/${CONCEPT_SEGMENT_PATH}`;
  }
  if (apiKey) url.searchParams.set('api_key', apiKey);
  return url.toString();
}

/** Strips a `data:<type>;base64,` prefix: the wire format wants the bare Base64 data. */
export function bareBase64(image: string): string {
  const comma = image.indexOf(',');
  return image.startsWith('data:') && comma !== -1 ? image.slice(comma + 1) : image;
}

export interface UpstreamTextSegmenter {
  /** `image` is the request's Base64 string (with or without a data-URI prefix), forwarded as is. */
  segmentBase64(image: string, prompts: readonly string[]): Promise<SegmentAnswer>;
}

export function createUpstreamTextSegmenter(options: UpstreamOptions): UpstreamTextSegmenter {
  const endpoint = conceptSegmentUrl(options.url, options.apiKey);
  const doFetch = options.fetch ?? fetch;
  return {
    async segmentBase64(image, prompts) {
      const body = {
        image: { type: 'base64', value: bareBase64(image) },
        prompts: prompts.map((text) => ({ type: 'text', text })),
        output_prob_thresh: options.outputProbThreshold ?? 0.5,
        format: 'polygon',
      };
      let response: Response;
      try {
        response = await doFetch(endpoint, {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'application/json' },
          body: JSON.stringify(body),
          signal: AbortSignal.timeout(options.timeoutMs ?? 30_000),
        });
      } catch (error) {
        const reason = error instanceof Error && error.name === 'TimeoutError' ? 'timed out' : (error as Error).message;
        throw new UpstreamError(`text upstream unreachable: ${reason}`);
      }
      const text = await response.text().catch(() => '');
      if (!response.ok) throw new UpstreamError(`text upstream answered ${response.status}: ${text.slice(0, 200)}`, response.status);
      let json: unknown;
      try {
        json = JSON.parse(text);
      } catch {
        throw new UpstreamError('text upstream answered with a body that is not JSON', response.status);
      }
      const parsed = UpstreamResponse.safeParse(json);
      if (!parsed.success) throw new UpstreamError(`text upstream answer has an unexpected shape: ${parsed.error.issues[0]?.message}`, response.status);
      return toOurResponse(parsed.data, prompts);
    },
  };
}

function toOurResponse(upstream: z.infer<typeof UpstreamResponse>, prompts: readonly string[]): SegmentAnswer {
  const byIndex = new Map(upstream.prompt_results.map((r) => [r.prompt_index, r]));
  if (byIndex.size !== upstream.prompt_results.length) throw new UpstreamError('text upstream answered one prompt twice');
  for (const index of byIndex.keys()) {
    if (index >= prompts.length) throw new UpstreamError(`text upstream answered prompt ${index}, but only ${prompts.length} were asked`);
  }
  return {
    prompt_results: prompts.map((text, index) => {
      const result = byIndex.get(index);
      if (!result) throw new UpstreamError(`text upstream gave no result for prompt ${index} ("${text}")`);
      if (result.echo?.text != null && result.echo.text !== text) {
        throw new UpstreamError(`text upstream echoed "${result.echo.text}" for prompt ${index} ("${text}")`);
      }
      return {
        echo: { text },
        predictions: result.predictions
          .map((p) => {
            if (p.format !== undefined && p.format !== 'polygon') throw new UpstreamError(`text upstream sent "${p.format}" masks, polygons were asked`);
            return {
              label: text,
              confidence: Math.min(1, Math.max(0, p.confidence)),
              masks: p.masks.filter((ring) => ring.length >= 3).map((ring) => ring.map((pt) => [pt[0], pt[1]] as [number, number])),
            };
          })
          .filter((p) => p.masks.length > 0),
      };
    }),
  };
}
