import type { PolygonWithHoles } from '../../engine/types';
import { polygonArea } from '../../annotations/polygon';

/**
 * What a screen reader hears when a result arrives: "Mask: 12 % of the image, 2 parts".
 * Area from the polygons, so local and remote results (which carry no pixel count) read the same.
 */
export function describeMask(polygons: readonly PolygonWithHoles[], imageWidth: number, imageHeight: number, candidateCount = 1): string {
  if (polygons.length === 0) return 'No mask found.';
  const area = polygons.reduce((sum, p) => sum + polygonArea(p), 0);
  const share = (100 * area) / Math.max(1, imageWidth * imageHeight);
  const percent = share > 0 && share < 1 ? '< 1' : String(Math.round(share));
  const parts = `${polygons.length} ${polygons.length === 1 ? 'part' : 'parts'}`;
  const choices = candidateCount > 1 ? `; ${candidateCount} candidates, [ and ] to switch` : '';
  return `Mask: ${percent} % of the image, ${parts}${choices}.`;
}
