/**
 * Label all for a class no detector knows by name ("walker"), from the people a person accepted as
 * walkers: the studio's EngineSession on a real engine thread with the detectors, on two real COCO
 * photos of people (the shared evaluation folder), through the local text seam as Label all uses it.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rasterizeSegmentation, type CocoSegmentation } from '../../../bench/evalCoco/rasterize';
import { studioEngineSession } from '../../../test/support/studioEngine';
import { sharedPath } from '../../../test/support/sharedData';
import { decodeImage } from '../../engine/adapters/nodeImage';
import { maskIoU } from '../../engine/polygons';
import type { BinaryMask, RgbaImage } from '../../engine/types';
import { emptyDocument, type StudioDocument } from '../state/model';
import { type ImageEntry, type Annotation } from '../../annotations/annotation';
import { proposedBy } from '../../annotations/review';
import type { EngineSession } from './engineSession';
import { exampleAwareSegmenter, exampleClassOf, type ExampleFinder } from './exampleLabelling';
import { localTextSegmenter } from './localText';

const COCO = sharedPath('eval/coco-tiny');
/** Four people; seven people, most of them small. */
const PHOTOS = ['000000269316.jpg', '000000349184.jpg'];
const WALKER = { id: 7, name: 'walker', color: '#00aa88' };

interface Coco {
  images: { id: number; file_name: string; width: number; height: number }[];
  annotations: { image_id: number; category_id: number; iscrowd: number; area: number; segmentation: CocoSegmentation }[];
}

let session: EngineSession;
const pixels = new Map<string, RgbaImage>();
const people = new Map<string, BinaryMask[]>();
const images: ImageEntry[] = [];

beforeAll(async () => {
  const coco = JSON.parse(readFileSync(`${COCO}/instances.json`, 'utf8')) as Coco;
  for (const name of PHOTOS) {
    const info = coco.images.find((i) => i.file_name === name)!;
    images.push({ id: name, name, width: info.width, height: info.height });
    pixels.set(name, await decodeImage(readFileSync(`${COCO}/images/${name}`)));
    const persons = coco.annotations.filter((a) => a.image_id === info.id && a.category_id === 1 && !a.iscrowd).sort((a, b) => b.area - a.area);
    people.set(name, persons.map((a) => rasterizeSegmentation(a.segmentation, info.width, info.height)));
  }
  session = studioEngineSession((id) => pixels.get(id));
}, 180_000);

afterAll(() => session?.dispose());

const walker = (image: string, mask: BinaryMask, review?: Annotation['review']): Annotation => ({
  id: `${image}-${Math.random()}`,
  label: WALKER.name,
  classId: WALKER.id,
  confidence: 1,
  color: WALKER.color,
  visible: true,
  polygons: [],
  mask,
  source: 'local',
  ...(review ? { review } : {}),
});

/** The person accepted the two largest people of the first photo as walkers; the second photo has none. */
function documentWithExamples(): StudioDocument {
  const [first, second] = PHOTOS;
  return {
    ...emptyDocument(),
    images,
    activeImageId: first,
    classes: [WALKER],
    objects: { [first]: people.get(first)!.slice(0, 2).map((m) => walker(first, m)), [second]: [] },
  };
}

/** The engine session, counting the exemplar calls. */
function counting(): ExampleFinder & { calls: string[] } {
  const calls: string[] = [];
  return {
    calls,
    findSimilar: (imageId, examples, outline, rule) => {
      calls.push(imageId);
      return session.findSimilar(imageId, examples, outline, rule);
    },
  };
}

const matched = (objects: readonly { mask?: BinaryMask }[], truth: readonly BinaryMask[]) => truth.filter((t) => objects.some((o) => o.mask && maskIoU(o.mask, t) >= 0.5)).length;

describe('Label all from examples', () => {
  it('answers by example only a class of the session that has accepted objects and that no detector knows', () => {
    const doc = documentWithExamples();
    expect(exampleClassOf(' Walker ', doc)).toEqual(WALKER);
    expect(exampleClassOf('person', { ...doc, classes: [{ ...WALKER, name: 'person' }] })).toBeUndefined();
    expect(exampleClassOf('runner', doc)).toBeUndefined();
    const proposedOnly = { ...doc, objects: { [PHOTOS[0]]: people.get(PHOTOS[0])!.slice(0, 2).map((m) => walker(PHOTOS[0], m, proposedBy('text-prompt'))) } };
    expect(exampleClassOf('walker', proposedOnly)).toBeUndefined();
  });

  it('finds the other walkers where the examples are, then asks the photo without any for the class the examples were read as', async () => {
    const doc = documentWithExamples();
    const finder = counting();
    const segmenter = exampleAwareSegmenter(localTextSegmenter(session, 1), finder, () => doc, 1);
    const [first, second] = images;

    // The photo without examples first (Label all starts on the current photo): the class is learnt from the other.
    const there = await segmenter.segment(second, ['walker']);
    expect(finder.calls).toEqual([first.id]);
    expect(there.objects.length).toBeGreaterThanOrEqual(2);
    for (const o of there.objects) expect(o).toMatchObject({ label: 'walker', classId: WALKER.id, review: { state: 'unreviewed', source: 'text-prompt' } });
    expect(matched(there.objects, people.get(second.id)!)).toBeGreaterThanOrEqual(2);

    // The examples' photo: the answer found while learning lands, with no second run.
    const here = await segmenter.segment(first, ['walker']);
    expect(finder.calls).toEqual([first.id]);
    for (const o of here.objects) expect(o).toMatchObject({ label: 'walker', classId: WALKER.id, review: { state: 'unreviewed', source: 'find-similar' } });
    const examples = people.get(first.id)!.slice(0, 2);
    expect(matched(here.objects, people.get(first.id)!.slice(2))).toBeGreaterThanOrEqual(1);
    for (const o of here.objects) for (const e of examples) expect(maskIoU(o.mask!, e)).toBeLessThan(0.7);
  }, 240_000);
});
