/**
 * More than one look at the photo per detector, so that it finds objects a single look misses:
 *
 * - the mirrored photo (test-time flip): a detector's misses depend partly on an object's
 *   orientation, so the mirrored view finds some that the photo does not (boxes mirrored back);
 * - overlapping tiles (slicing, SAHI: Akyon et al. 2022): a 2×2 grid of tiles, each overlapping its
 *   neighbour by a quarter of a tile, each given to the detector at its full input size, so small
 *   objects get more detector pixels. Only when a tile is at least as large as the detector's input:
 *   below that the tile would be upsampled, adding no detail, only detector runs. A tile box cut by
 *   an inner tile edge is the visible part of a larger object; when a whole-photo pass has a box of
 *   the concept over it, that box speaks for the object and the cut one is dropped.
 *
 * The passes' boxes become one list by suppression (the best-scored box of overlapping ones is kept)
 * or by Weighted Box Fusion (fusion.ts). The scores stay the detector's own kind (calibration.ts maps
 * them; its parameters are fitted for the passes in use).
 *
 * The service takes one look (SINGLE_PASS); these plug into the text pipeline through its detection
 * rule hook (`detectionRule`, src/engine/text/pool.ts) for the bench and the COCO eval.
 */
import { cropImage } from '../../src/engine/crop';
import { mirrorImage } from '../../src/engine/mirror';
import type { RgbaImage } from '../../src/engine/types';
import { boxIoU, suppressOverlaps, type ConceptDetector, type CornerBox, type DetectOptions, type Detection } from '../../src/engine/text/detector';
import type { DetectionRule } from '../../src/engine/text/pool';
import { DEFAULT_WBF_IOU, fuseDetectors, weightedBoxFusion, type PassDetections } from './fusion';

export interface DetectionPasses {
  /** Also the photo mirrored left–right. */
  readonly mirror: boolean;
  /** Also a 2×2 grid of overlapping tiles, when a tile is at least the detector's input size. */
  readonly tiles: boolean;
  /** How the boxes of the passes become one list. */
  readonly fusion: 'suppress' | 'wbf';
}

/**
 * One look: the whole photo as the detector's upstream feeds it — the service's. The mirrored photo
 * (with suppression) was the variant chosen on the fit half of coco-tiny, but its gain there did not
 * hold on the held-out half while it doubles the detector time (docs/RESULTS.md, issue 17 third pass),
 * and the calibration table (calibration.ts) is fitted for one look.
 */
export const SINGLE_PASS: DetectionPasses = { mirror: false, tiles: false, fusion: 'suppress' };

/** Each tile overlaps its neighbour by this share of a tile (SAHI's examples use 0.2–0.25). */
export const TILE_OVERLAP = 0.25;

/** The 2×2 grid's tiles in photo pixels (integers), each neighbour pair overlapping by `overlap` of a tile. */
export function tileRegions(width: number, height: number, overlap = TILE_OVERLAP): CornerBox[] {
  const tileWidth = Math.round(width / (2 - overlap));
  const tileHeight = Math.round(height / (2 - overlap));
  const xs = [0, width - tileWidth];
  const ys = [0, height - tileHeight];
  return ys.flatMap((y0) => xs.map((x0) => ({ x0, y0, x1: x0 + tileWidth, y1: y0 + tileHeight })));
}

/** Whether tiling gives the detector more pixels of the photo: a tile's longer side is at least its input size. */
export function tilingAddsDetail(width: number, height: number, detectorInputSize: number, overlap = TILE_OVERLAP): boolean {
  return Math.max(width, height) / (2 - overlap) >= detectorInputSize;
}

export function mirrorBox(box: CornerBox, width: number): CornerBox {
  return { x0: width - box.x1, y0: box.y0, x1: width - box.x0, y1: box.y1 };
}

function offsetBox(box: CornerBox, dx: number, dy: number): CornerBox {
  return { x0: box.x0 + dx, y0: box.y0 + dy, x1: box.x1 + dx, y1: box.y1 + dy };
}

/** Whether a box (photo pixels) touches one of the tile's edges that lie inside the photo. */
export function cutByInnerEdge(box: CornerBox, tile: CornerBox, width: number, height: number): boolean {
  // Detectors clamp their boxes to their input, so a cut box ends on the edge; allow a little slack.
  const slack = Math.max(2, 0.01 * Math.max(tile.x1 - tile.x0, tile.y1 - tile.y0));
  return (
    (tile.x0 > 0 && box.x0 - tile.x0 <= slack) ||
    (tile.y0 > 0 && box.y0 - tile.y0 <= slack) ||
    (tile.x1 < width && tile.x1 - box.x1 <= slack) ||
    (tile.y1 < height && tile.y1 - box.y1 <= slack)
  );
}

/** The share of `inner`'s area that `outer` covers. */
function coveredShare(inner: CornerBox, outer: CornerBox): number {
  const iw = Math.max(0, Math.min(inner.x1, outer.x1) - Math.max(inner.x0, outer.x0));
  const ih = Math.max(0, Math.min(inner.y1, outer.y1) - Math.max(inner.y0, outer.y0));
  const area = (inner.x1 - inner.x0) * (inner.y1 - inner.y0);
  return area > 0 ? (iw * ih) / area : 0;
}

/** How many detector runs `passes` costs on a photo of this size. */
export function passCount(detector: Pick<ConceptDetector, 'inputSize'>, width: number, height: number, passes: DetectionPasses): number {
  return 1 + (passes.mirror ? 1 : 0) + (passes.tiles && tilingAddsDetail(width, height, detector.inputSize) ? 4 : 0);
}

/** The detector's boxes from every pass, in photo pixels, fused into one list (best first). */
export async function detectWithPasses(
  detector: ConceptDetector,
  image: RgbaImage,
  passes: DetectionPasses,
  options: DetectOptions = {},
): Promise<Detection[]> {
  const { width, height } = image;
  const whole: CornerBox = { x0: 0, y0: 0, x1: width, y1: height };
  const photoPasses: PassDetections[] = [{ detections: await detector.detect(image, options), view: whole }];
  if (passes.mirror) {
    const mirrored = await detector.detect(mirrorImage(image), options);
    photoPasses.push({ detections: mirrored.map((d) => ({ ...d, box: mirrorBox(d.box, width) })), view: whole });
  }
  const tilePasses: PassDetections[] = [];
  if (passes.tiles && tilingAddsDetail(width, height, detector.inputSize)) {
    const wholeBoxes = photoPasses.flatMap((p) => p.detections);
    for (const tile of tileRegions(width, height)) {
      const found = await detector.detect(cropImage(image, tile), options);
      const detections = found
        .map((d) => ({ ...d, box: offsetBox(d.box, tile.x0, tile.y0) }))
        .filter((d) => !(cutByInnerEdge(d.box, tile, width, height) && wholeBoxes.some((w) => w.label === d.label && coveredShare(d.box, w.box) >= 0.5)));
      tilePasses.push({ detections, view: tile });
    }
  }
  const all = [...photoPasses, ...tilePasses];
  if (all.length === 1) return [...all[0].detections];
  if (passes.fusion === 'wbf') return weightedBoxFusion(all, DEFAULT_WBF_IOU);
  const sorted = all.flatMap((p) => p.detections).sort((a, b) => b.score - a.score);
  return suppressOverlaps(sorted, (a, b) => (a.label === b.label ? boxIoU(a.box, b.box) : 0), DEFAULT_WBF_IOU);
}

/** How the detectors' boxes of one object become one: the service's suppression, or WBF across detectors (fusion.ts). */
export type DetectorFusion = 'suppress' | 'wbf';

/** The text pipeline's detection rule (src/engine/text/pool.ts's hook) of these passes and detector fusion. */
export function detectionRule(passes: DetectionPasses, detectorFusion: DetectorFusion = 'suppress'): DetectionRule {
  const oneLook = !passes.mirror && !passes.tiles;
  return {
    detect: oneLook ? undefined : (detector, image, options) => detectWithPasses(detector, image, passes, options),
    fuse: detectorFusion === 'wbf' ? fuseDetectors : undefined,
  };
}
