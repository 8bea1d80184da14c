import { z } from 'zod';
import { DEFAULT_SEGMENTATION_OPTIONS } from '../engine/options';

/**
 * The API's one departure from the engine's defaults: `/pvs` takes one look unless asked for the
 * mirror averaging. Mirror averaging saves 6–9 % of the clicks to 90 % IoU but costs twice the
 * decoder time per call, so one look reaches 90 % IoU in about half the server time per object and
 * a process serves about twice the calls (docs/RESULTS.md, issue 29).
 */
export const API_DEFAULT_MIRROR_AVERAGE = false;
import { LIMITS } from './limits';

/** A coordinate in image pixels of the uploaded image: finite and non-negative. */
const pixel = z.number().finite().nonnegative();

/** Base64 image, optionally with a `data:<media_type>;base64,` prefix. Decoding is checked by the server. */
export const ImageField = z
  .string()
  .min(1, 'image must not be empty')
  .max(LIMITS.imageMaxChars, `image must be at most ${LIMITS.imageMaxChars} characters`);

/** [x, y] in image pixels. */
export const Vertex = z.tuple([z.number(), z.number()]);
/** A closed ring given as its vertices (first vertex not repeated). */
export const Polygon = z.array(Vertex);
export type Polygon = z.infer<typeof Polygon>;

export const Point = z.object({
  x: pixel,
  y: pixel,
  positive: z.boolean().default(true),
});
export type Point = z.infer<typeof Point>;

/** Center-anchored box: `x`, `y` are the CENTER of the rectangle. */
export const Box = z.object({
  x: pixel,
  y: pixel,
  width: z.number().finite().positive(),
  height: z.number().finite().positive(),
});
export type Box = z.infer<typeof Box>;

export const PvsRequest = z
  .object({
    image: ImageField,
    points: z.array(Point).max(LIMITS.pointsMax).optional(),
    box: Box.optional(),
    imageId: z.string().min(1).max(256).optional(),
    /** Left out: the engine's default (several candidates, as the service specification says). */
    multimaskOutput: z.boolean().default(DEFAULT_SEGMENTATION_OPTIONS.multimask),
    /**
     * Not in the service specification (an extension): also segment the photo's mirror image with the
     * mirrored prompt and average the two answers — the engine's rule, which the studio applies when
     * the user pauses: 6–9 % fewer clicks for 90 % IoU (docs/RESULTS.md, issue 12) for one more
     * encoder run per photo and twice the decoder time per call. Off by default on the API
     * (`API_DEFAULT_MIRROR_AVERAGE`): per unit of server time one look gets further (issue 29,
     * docs/RESULTS.md). The price is the same either way.
     */
    mirrorAverage: z.boolean().default(API_DEFAULT_MIRROR_AVERAGE),
  })
  .superRefine((req, ctx) => {
    const hasPositive = req.points?.some((p) => p.positive) ?? false;
    if (!req.box && !hasPositive) {
      ctx.addIssue({
        code: 'custom',
        path: ['points'],
        message: 'either box or points with at least one positive point is required',
      });
    }
  });
export type PvsRequest = z.infer<typeof PvsRequest>;

/** One candidate mask of the PVS response. */
export const PvsPrediction = z.object({
  /** Outer rings, one per connected part, in image-pixel coordinates. */
  masks: z.array(Polygon),
  /** The decoder's predicted IoU for this candidate, in [0, 1]. */
  confidence: z.number().min(0).max(1),
});
export type PvsPrediction = z.infer<typeof PvsPrediction>;

export const PvsResponse = z.object({
  /** One element per request (PVS segments one object per request); candidates best first. */
  prompts: z.array(z.object({ predictions: z.array(PvsPrediction) })),
  /** The id under which the image embedding is cached: the request's imageId or a content hash. */
  imageId: z.string(),
});
export type PvsResponse = z.infer<typeof PvsResponse>;

export const SegmentRequest = z.object({
  image: ImageField,
  prompts: z
    .array(z.string().min(LIMITS.promptMinChars).max(LIMITS.promptMaxChars))
    .min(1, 'at least one text prompt is required')
    .max(LIMITS.promptsMax),
});
export type SegmentRequest = z.infer<typeof SegmentRequest>;

export const SegmentPrediction = z.object({
  label: z.string(),
  confidence: z.number().min(0).max(1),
  masks: z.array(Polygon),
});
export type SegmentPrediction = z.infer<typeof SegmentPrediction>;

export const SegmentResponse = z.object({
  prompt_results: z.array(
    z.object({
      echo: z.object({ text: z.string() }),
      predictions: z.array(SegmentPrediction),
    }),
  ),
});
export type SegmentResponse = z.infer<typeof SegmentResponse>;

/**
 * Segment everything (an extension of the service specification): every object and region of the
 * photo as proposals, for a person to review. Priced under its own key, with the same idempotency,
 * refund and limit rules as /segment.
 */
export const EverythingRequest = z.object({
  image: ImageField,
});
export type EverythingRequest = z.infer<typeof EverythingRequest>;

export const EverythingPrediction = z.object({
  /** The decoder's predicted IoU × the mask's stability, in [0, 1]; predictions come best first. */
  confidence: z.number().min(0).max(1),
  /** Outer rings, one per connected part, in image-pixel coordinates. */
  masks: z.array(Polygon),
  /** What prompted it: a detector's box (`label` then names the detector's class) or a grid point. */
  source: z.enum(['detector', 'grid']),
  label: z.string().optional(),
});
export type EverythingPrediction = z.infer<typeof EverythingPrediction>;

export const EverythingResponse = z.object({
  predictions: z.array(EverythingPrediction),
});
export type EverythingResponse = z.infer<typeof EverythingResponse>;
