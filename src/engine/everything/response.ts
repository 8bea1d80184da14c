/** Proposals as the service's everything response (outer rings; masks whose outline is empty are left out). */
import type { EverythingAnswer } from '../answers';
import type { OutlineOptions } from '../options';
import { maskOutline, outerRings } from '../polygons';
import type { Proposal } from './segmentEverything';

export function toEverythingResponse(proposals: readonly Proposal[], outline: Partial<OutlineOptions> = {}): EverythingAnswer {
  return {
    predictions: proposals
      .map((p) => ({
        confidence: Math.min(1, Math.max(0, p.confidence)),
        masks: outerRings(maskOutline(p.mask, { ...outline, area: p.area })),
        source: p.source,
        ...(p.label === undefined ? {} : { label: p.label }),
      }))
      .filter((p) => p.masks.length > 0),
  };
}
