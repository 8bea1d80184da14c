/**
 * Sessions for the learned-model tests: a photo of coloured stripes, boxes drawn on them, and a
 * SessionLearner whose descriptors are the real appearance descriptor of those pixels (the engine's
 * SAM and detector parts left empty, so no model is loaded). It counts what it describes, to show
 * what was taught twice.
 */
import type { Annotation, ClassDef } from '../../annotations/annotation';
import { appearanceDescriptor, DESCRIPTOR_KINDS, type RegionDescriptor } from '../../engine/learn/descriptors';
import type { RgbaImage } from '../../engine/types';
import { emptyDocument, type StudioDocument } from '../state/model';
import { SessionLearner } from './sessionLearner';

export const PHOTO = 'stripes.png';
const SIZE = 96;
/** One stripe per class, a third of the photo each: a box on a stripe has that stripe's colour. */
const STRIPES: Record<string, readonly [number, number, number]> = { red: [220, 30, 30], green: [30, 200, 40], blue: [30, 40, 220] };
export const CLASSES: ClassDef[] = Object.keys(STRIPES).map((name, i) => ({ id: i + 1, name, color: '#888888' }));

function stripes(): RgbaImage {
  const data = new Uint8ClampedArray(SIZE * SIZE * 4);
  const colours = Object.values(STRIPES);
  for (let y = 0; y < SIZE; y++)
    for (let x = 0; x < SIZE; x++) {
      // A little texture, so no two boxes describe the same.
      const [r, g, b] = colours[Math.floor((y * colours.length) / SIZE)];
      data.set([r + ((x * 7 + y * 3) % 20), g + ((x * 5) % 20), b + ((y * 11) % 20), 255], (y * SIZE + x) * 4);
    }
  return { width: SIZE, height: SIZE, data };
}
const photo = stripes();

/** A descriptor of every kind the engine has: the appearance, and a constant for the others (the classifier wants every part). */
const appearanceOnly = (appearance: number[]) => ({ ...(Object.fromEntries(DESCRIPTOR_KINDS.map((kind) => [kind, [1]])) as unknown as RegionDescriptor), appearance });

/** The `n`th box drawn on the stripe of `className`, as a person draws it (accepted). */
export function drawn(className: string, n: number, id = `${className}-${n}`): Annotation {
  const classDef = CLASSES.find((c) => c.name === className)!;
  const band = SIZE / CLASSES.length;
  const box: [number, number, number, number] = [2 + (n % 8) * 10, (classDef.id - 1) * band + 2 + (n % 3) * 3, 16, band - 12];
  return { id, kind: 'box', box, label: className, classId: classDef.id, confidence: 1, color: classDef.color, visible: true, source: 'local', polygons: [] };
}

export function documentWith(objects: Annotation[]): StudioDocument {
  return { ...emptyDocument(), images: [{ id: PHOTO, name: PHOTO, width: SIZE, height: SIZE }], activeImageId: PHOTO, classes: CLASSES, objects: { [PHOTO]: objects } };
}

/** A studio's learner over a document it can change. */
export function testStudio(objects: Annotation[] = []) {
  const studio = {
    doc: documentWith(objects),
    described: 0,
    add(...more: Annotation[]) {
      studio.doc = documentWith([...(studio.doc.objects[PHOTO] ?? []), ...more]);
    },
    learner: undefined as unknown as SessionLearner,
  };
  studio.learner = new SessionLearner(
    {
      document: () => studio.doc,
      describe: async (_imageId, masks) => {
        studio.described += masks.length;
        return masks.map((mask) => appearanceOnly(appearanceDescriptor(photo, mask)));
      },
      reclass: () => undefined,
    },
    0,
  );
  return studio;
}

/** How many examples of `className` a learner holds. */
export const examplesOf = (studio: ReturnType<typeof testStudio>, className: string) => studio.learner.classifier.examplesOf(className);
