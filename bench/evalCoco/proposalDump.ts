/**
 * One photo's proposals as a JSON line for `--dump`: every proposal the rule made (not only the shown
 * ones) with what a ranking could read of it, and its mask IoU with each instance it comes near, so
 * that other rankings of the same proposals can be replayed without running the models again.
 */
import type { Proposal } from '../../src/engine/everything/segmentEverything';
import { cocoIoU, type GroundTruthInstance, type Region } from './metrics';

/** IoUs below this are left out of a line: such a proposal neither matches nor nearly matches. */
const NEAR_IOU = 0.1;

export interface DumpedInstance extends GroundTruthInstance {
  readonly area: number;
}

export function proposalDumpLine(fileName: string, rule: string, gts: readonly DumpedInstance[], proposals: readonly Proposal[], regions: readonly Region[]): string {
  return JSON.stringify({
    file: fileName,
    rule,
    instances: gts.map((g) => ({ area: g.area, crowd: g.crowd })),
    proposals: proposals.map((p, k) => ({
      id: p.id,
      confidence: p.confidence,
      rankScore: p.rankScore,
      strongestDetectorScore: p.strongestDetectorScore,
      predictedIoU: p.predictedIoU,
      stability: p.stability,
      source: p.source,
      detectorScore: p.detectorScore,
      boxAgreement: p.boxAgreement,
      label: p.label,
      tile: Boolean(p.tile),
      area: p.area,
      box: p.box,
      promptBox: p.prompt.box,
      ious: Object.fromEntries(gts.map((g, i) => [i, cocoIoU(regions[k], g)] as const).filter(([, iou]) => iou >= NEAR_IOU).map(([i, iou]) => [i, Number(iou.toFixed(4))])),
    })),
  });
}
