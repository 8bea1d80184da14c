import { interpretPrompt } from '../../engine/text/promptParser';
import type { FindSimilarResponse } from '../../engine/service/api';
import type { BinaryMask } from '../../engine/types';
import { objectMask } from '../geometry/objectMask';
import type { ClassDef, ImageEntry, Annotation } from '../../annotations/annotation';
import type { StudioDocument } from '../state/model';
import { isAccepted } from '../../annotations/review';
import { similarProposals } from './similarObjects';
import type { TextSegmentation, TextSegmenter } from './textSegmentation';

/**
 * Label all for a class the person has outlined but no detector knows by its name ("walker", "my
 * mug"): the text seam Label all runs through (textSegmentation.ts), answering such a prompt from
 * the class's accepted objects. On a photo that holds some, they are the examples of the engine's
 * exemplar rule (`findSimilar` with the photo, rule 'detected': src/engine/text/exemplar.ts); the
 * detector classes the rule reads them as are then asked by text on the photos that hold none.
 * A class whose examples no detector names is answered only where it has examples (appearance does
 * not carry from one photo to another). Every other prompt goes to `base` unchanged. One segmenter
 * per run: what it learns of a class lasts for that run.
 */

/** What this needs of the engine session (EngineSession.findSimilar). */
export interface ExampleFinder {
  findSimilar(imageId: string, examples: readonly BinaryMask[], outline: { tolerance: number }, rule: 'detected'): Promise<FindSimilarResponse>;
}

/** The class a prompt names when it is one of the session's classes, with accepted objects, that no detector knows. */
export function exampleClassOf(prompt: string, doc: StudioDocument): ClassDef | undefined {
  if (interpretPrompt(prompt).classes.length > 0) return undefined;
  const name = prompt.trim().toLowerCase();
  const cls = doc.classes.find((c) => c.name.trim().toLowerCase() === name);
  if (!cls) return undefined;
  return Object.values(doc.objects).some((list) => list.some((o) => o.classId === cls.id && isAccepted(o))) ? cls : undefined;
}

const examplesOn = (doc: StudioDocument, image: ImageEntry, cls: ClassDef): Annotation[] =>
  (doc.objects[image.id] ?? []).filter((o) => o.classId === cls.id && isAccepted(o));

export function exampleAwareSegmenter(base: TextSegmenter, finder: ExampleFinder, documentNow: () => StudioDocument, tolerance: number): TextSegmenter {
  /** Per class id: the detector classes its examples were read as (empty: none). */
  const learned = new Map<number, readonly string[]>();
  /** Answers found while learning, per image and class, landed when Label all reaches that image. */
  const early = new Map<string, FindSimilarResponse>();

  const fromExamples = async (image: ImageEntry, examples: readonly Annotation[], cls: ClassDef): Promise<FindSimilarResponse> => {
    const key = `${image.id}\u0000${cls.id}`;
    const kept = early.get(key);
    if (kept) {
      early.delete(key);
      return kept;
    }
    const answer = await finder.findSimilar(image.id, examples.map((o) => objectMask(o, image.width, image.height)), { tolerance }, 'detected');
    learned.set(cls.id, answer.classes ?? []);
    return answer;
  };

  /** The detector classes of `cls`, read from the first photo that holds examples of it. */
  const classesOf = async (doc: StudioDocument, cls: ClassDef): Promise<readonly string[]> => {
    const known = learned.get(cls.id);
    if (known) return known;
    const image = doc.images.find((i) => examplesOn(doc, i, cls).length > 0);
    if (!image) return [];
    early.set(`${image.id}\u0000${cls.id}`, await fromExamples(image, examplesOn(doc, image, cls), cls));
    return learned.get(cls.id) ?? [];
  };

  const asClass = (objects: TextSegmentation['objects'], cls: ClassDef) => objects.map((o) => ({ ...o, label: cls.name, classId: cls.id }));

  return {
    runsOn: base.runsOn,
    async segment(image, prompts, onWaiting) {
      const doc = documentNow();
      const byExample = prompts.map((p) => exampleClassOf(p, doc));
      const others = prompts.filter((_, i) => !byExample[i]);
      const answer: TextSegmentation = others.length > 0 ? await base.segment(image, others, onWaiting) : { objects: [], requestId: null, refunded: false };
      const objects = [...answer.objects];
      for (const cls of byExample) {
        if (!cls) continue;
        const examples = examplesOn(doc, image, cls);
        if (examples.length > 0) {
          const found = await fromExamples(image, examples, cls);
          objects.push(...similarProposals(found.instances, cls.name, cls.id, tolerance));
          continue;
        }
        const classes = await classesOf(doc, cls);
        if (classes.length > 0) objects.push(...asClass((await base.segment(image, classes, onWaiting)).objects, cls));
      }
      return { ...answer, objects };
    },
  };
}
