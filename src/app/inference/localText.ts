import { interpretPrompt } from '../../engine/text/promptParser';
import type { EngineSession } from './engineSession';
import { outcomeOf } from './textOutcomes';
import type { TextSegmenter } from './textSegmentation';
import { proposedBy } from '../../annotations/review';

/**
 * Text prompts in the browser: the engine worker runs the same pipeline as the server (COCO
 * detector → SAM box prompts) on the embedding the point tools already use. No API key, no credit.
 */
export function localTextSegmenter(session: EngineSession, tolerance: number): TextSegmenter {
  return {
    runsOn: 'browser',
    async segment(image, prompts) {
      // Prompts the local model cannot understand are answered here, without starting anything.
      const interpretations = prompts.map((text) => ({ ...interpretPrompt(text), text }));
      if (interpretations.every((i) => i.classes.length === 0)) {
        const outcomes = interpretations.map((i) => outcomeOf({ text: i.text, known: false, reason: i.reason, instances: [] }));
        return { objects: [], requestId: null, refunded: false, outcomes };
      }
      // On the point tools' embedding: the worker's cached embedding is reused, not recomputed.
      const response = await session.segmentText(image.id, prompts, { tolerance });
      const objects = response.results.flatMap((r) =>
        r.instances.map((t) => ({
          label: t.label,
          confidence: t.confidence,
          visible: true,
          polygons: t.polygons,
          mask: t.mask,
          outlineTolerance: tolerance,
          source: 'text' as const,
          review: proposedBy('text-prompt'),
        })),
      );
      return { objects, requestId: null, refunded: false, outcomes: response.results.map(outcomeOf) };
    },
  };
}
