import type { SegmentResponse } from '../../contract';
import { bridgeHoles } from '../../annotations/polygon';
import type { Annotation } from '../../annotations/annotation';

/** Labels in order of first appearance. */
function labelsOf(objects: readonly Annotation[]): string[] {
  return [...new Set(objects.map((o) => o.label))];
}

const round2 = (n: number) => Math.round(n * 100) / 100;

/**
 * The service's own response shape (`prompt_results`, one entry per label), so an export can be fed
 * to any client written against the API. Rings carry holes as keyhole cuts, like the COCO export.
 */
export function toApiJson(objects: readonly Annotation[]): SegmentResponse {
  return {
    prompt_results: labelsOf(objects).map((label) => ({
      echo: { text: label },
      predictions: objects
        .filter((o) => o.label === label)
        .map((o) => ({
          label,
          confidence: Math.min(1, Math.max(0, o.confidence)),
          masks: o.polygons.map(bridgeHoles).filter((r) => r.length >= 3).map((ring) => ring.map(([x, y]) => [round2(x), round2(y)] as [number, number])),
        })),
    })),
  };
}
