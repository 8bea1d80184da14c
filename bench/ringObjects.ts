/** Large annotation bodies for the write benchmarks (bench:health, bench:write-stages). */
import type { AnnotationObject } from '../src/contract/projects';

/**
 * `count` objects of one ring of `vertices` vertices each: a circle around the image's centre (any
 * shape the limits count), its coordinates with `decimals` decimals (a traced outline has fractions).
 */
export function ringObjects(count: number, vertices: number, width: number, height: number, decimals = 6): AnnotationObject[] {
  const scale = 10 ** decimals;
  return Array.from({ length: count }, (_, i) => {
    const radius = (Math.min(width, height) / 2 - 2) * (1 - i / (count + 1));
    const outer = Array.from({ length: vertices }, (_, v) => {
      const angle = (2 * Math.PI * v) / vertices;
      return [Math.round((width / 2 + radius * Math.cos(angle)) * scale) / scale, Math.round((height / 2 + radius * Math.sin(angle)) * scale) / scale] as [number, number];
    });
    return { id: `o${i}`, classId: (i % 3) + 1, polygons: [{ outer, holes: [] }], source: 'local', confidence: 1, visible: true, review: 'accepted' } as AnnotationObject;
  });
}
