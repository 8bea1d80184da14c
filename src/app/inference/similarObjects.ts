import { objectMask } from '../geometry/objectMask';
import type { ImageEntry, SegObject } from '../state/model';
import { studio } from '../state/studioStore';
import { ensureEmbedding, startLocalEngine } from './localEngine';

/**
 * "Find similar" on an accepted object: the engine worker looks for other instances from SAM's
 * image features alone (src/engine/text/similar.ts), so it works for things no detector knows.
 * Local mode only: it needs the image embedding, which only the browser engine keeps.
 */

/** Adds what was found as new objects, labelled like the source, in one undo step; returns how many. */
export async function findSimilarObjects(image: ImageEntry, object: SegObject, tolerance: number): Promise<number> {
  const client = await startLocalEngine();
  const imageKey = await ensureEmbedding(image.id);
  const { instances } = await client.findSimilar(imageKey, objectMask(object, image.width, image.height), { tolerance });
  studio.addObjects(
    image.id,
    instances.map((f) => ({
      label: object.label,
      classId: object.classId ?? null,
      confidence: Math.min(1, Math.max(0, f.score)),
      visible: true,
      polygons: f.polygons,
      mask: f.mask,
      source: 'local' as const,
    })),
    'find similar',
  );
  return instances.length;
}
