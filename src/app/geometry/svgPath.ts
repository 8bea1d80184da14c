import type { PolygonWithHoles } from '../../engine/types';

/** An SVG path of all rings; drawn with `fill-rule="evenodd"` holes stay open. */
export function polygonsToSvgPath(polygons: readonly PolygonWithHoles[], digits = 1): string {
  const f = (n: number) => Number(n.toFixed(digits)).toString();
  const parts: string[] = [];
  for (const polygon of polygons) {
    for (const ring of [polygon.outer, ...polygon.holes]) {
      if (ring.length < 3) continue;
      parts.push(`M${ring.map(([x, y]) => `${f(x)} ${f(y)}`).join('L')}Z`);
    }
  }
  return parts.join('');
}

export function countVertices(polygons: readonly PolygonWithHoles[]): number {
  return polygons.reduce((n, p) => n + p.outer.length + p.holes.reduce((m, h) => m + h.length, 0), 0);
}
