/**
 * "Label all like my labels" and the session's learner on the studio's EngineSession over a real
 * engine thread (SAM and the detectors), on raccoon photos (a class no detector names) read in place
 * from the shared evaluation folder: three photos labelled by box, a fourth left to the tool.
 */
import { existsSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { studioEngineSession } from '../../../test/support/studioEngine';
import { sharedPath } from '../../../test/support/sharedData';
import { decodeImage } from '../../engine/adapters/nodeImage';
import { maskBox } from '../../engine/learn/descriptors';
import { boxIoU } from '../../engine/text/detector';
import { maskIoU } from '../../engine/polygons';
import type { RgbaImage } from '../../engine/types';
import type { Annotation, ImageEntry } from '../../annotations/annotation';
import { reviewStateOf } from '../../annotations/review';
import type { EngineSession } from '../inference/engineSession';
import { withoutDuplicates } from '../inference/objectDedupe';
import { addObjects, updateObject } from '../state/documentOps';
import { emptyDocument, type StudioDocument } from '../state/model';
import { labelLikeMine, labelLikeMineBlocked, type LabelLikeMinePorts, type LabelLikeMineProgress } from './labelLikeMine';
import { reclassWaiting } from './reclassWaiting';
import { SessionLearner, type LearnerPorts } from './sessionLearner';

const RACCOONS = sharedPath('eval/raccoon');
const LABELLED = ['raccoon-1.jpg', 'raccoon-10.jpg', 'raccoon-100.jpg'];
const LEFT = 'raccoon-101.jpg';
const RACCOON = { id: 5, name: 'raccoon', color: '#aa5500' };

interface Coco {
  images: { id: number; file_name: string; width: number; height: number }[];
  annotations: { image_id: number; bbox: [number, number, number, number] }[];
}

let session: EngineSession;
let doc: StudioDocument;
const pixels = new Map<string, RgbaImage>();
const truth = new Map<string, [number, number, number, number][]>();
const described: string[] = [];

beforeAll(async () => {
  if (!existsSync(`${RACCOONS}/instances.json`)) return;
  const coco = JSON.parse(readFileSync(`${RACCOONS}/instances.json`, 'utf8')) as Coco;
  const images: ImageEntry[] = [];
  const objects: Record<string, Annotation[]> = {};
  for (const name of [...LABELLED, LEFT]) {
    const info = coco.images.find((i) => i.file_name === name)!;
    images.push({ id: name, name, width: info.width, height: info.height });
    pixels.set(name, await decodeImage(readFileSync(`${RACCOONS}/images/${name}`)));
    truth.set(name, coco.annotations.filter((a) => a.image_id === info.id).map((a) => a.bbox));
    // The person drew a box around each raccoon of the labelled photos.
    objects[name] = LABELLED.includes(name)
      ? truth.get(name)!.map((box, k) => ({ id: `${name}-${k}`, kind: 'box', box, label: 'raccoon', classId: RACCOON.id, confidence: 1, color: RACCOON.color, visible: true, source: 'local', polygons: [] }))
      : [];
  }
  doc = { ...emptyDocument(), images, activeImageId: LEFT, classes: [RACCOON], objects };
  session = studioEngineSession((id) => pixels.get(id), 4);
}, 180_000);

afterAll(() => session?.dispose());

const learnerPorts: LearnerPorts = {
  document: () => doc,
  describe: (imageId, masks) => (described.push(imageId), session.describeRegions(imageId, masks)),
  reclass: (imageId, objectId, change) => void (doc = reclassWaiting(doc, imageId, objectId, change)),
};

const runPorts: LabelLikeMinePorts = {
  document: () => doc,
  candidates: async (image, _text, signal) => (await session.segmentEverything(image.id, { outline: { tolerance: 1 } }, { signal })).proposals,
  describe: (imageId, masks) => session.describeRegions(imageId, masks),
  detectorKnows: () => false,
  add: (image, objects) => {
    const { added, duplicates, reasons } = withoutDuplicates(doc.objects[image.id] ?? [], objects, image, doc.classes);
    doc = addObjects(doc, image.id, added.map((o, k) => ({ ...o, id: `${image.id}-proposal-${Date.now()}-${k}` })));
    return { added: added.length, duplicates, reasons };
  },
  tolerance: 1,
};

const learned = () => (doc.objects[LEFT] ?? []).filter((o) => o.review?.source === 'learned');
const isRaccoon = (o: Annotation) => truth.get(LEFT)!.some(([x, y, w, h]) => boxIoU(maskBox(o.mask!)!, { x0: x, y0: y, x1: x + w, y1: y + h }) >= 0.5);

describe.skipIf(!existsSync(`${RACCOONS}/instances.json`))('Label all like my labels', () => {
  const learner = new SessionLearner(learnerPorts, 0);

  it('is blocked with a reason until a class has examples', () => {
    const empty = { ...doc, objects: {} };
    expect(labelLikeMineBlocked(learner, empty)).toMatch(/Label a few objects with a class first/);
    expect(labelLikeMineBlocked(learner, doc)).toBeUndefined();
  });

  it('learns "raccoon" from three photos labelled by box and proposes the raccoon of the fourth, the current photo first', async () => {
    const seen: LabelLikeMineProgress[] = [];
    const end = await labelLikeMine(learner, runPorts, new AbortController().signal, (p) => seen.push(p));
    expect(learner.taughtClasses()).toEqual(['raccoon']);
    expect(end).toMatchObject({ classes: ['raccoon'], done: 7, total: 7, stopped: false, working: null });
    expect(seen.some((p) => p.working?.startsWith('learning from your labels'))).toBe(true);
    // After the labelled photos teach, the current photo is the first one answered.
    expect(seen.find((p) => p.working && !p.working.startsWith('learning'))!.working).toBe(LEFT);
    const proposals = learned();
    expect(proposals.length).toBeGreaterThan(0);
    for (const o of proposals) expect(o).toMatchObject({ classId: RACCOON.id, label: 'raccoon', review: { state: 'unreviewed', source: 'learned' } });
    expect(proposals.some(isRaccoon)).toBe(true);
    expect(learner.stepMs.length).toBeGreaterThan(0);
  }, 600_000);

  it('a rejected proposal teaches background, calibrates, and is not proposed again', async () => {
    const [first] = learned();
    doc = updateObject(doc, LEFT, first.id, { review: { state: 'rejected', source: 'learned' } });
    const before = learner.classifier.shownDecisions().length;
    described.length = 0;
    await learner.learnPending();
    // Its descriptor was kept with the proposal: learning asks the engine for nothing.
    expect(described).toEqual([]);
    expect(learner.classifier.shownDecisions().length).toBe(before + 1);
    const again = await labelLikeMine(learner, runPorts, new AbortController().signal, () => undefined);
    expect(again.total).toBe(4);
    // Whether the model no longer ranks it or the de-duplication leaves it out, the same region does not come back.
    const rejectedAgain = learned().filter((o) => o.id !== first.id && reviewStateOf(o) === 'unreviewed' && maskIoU(o.mask!, first.mask!) >= 0.9);
    expect(rejectedAgain).toEqual([]);
  }, 600_000);

  it('comes back from its JSON (vectors and weights) and teaches nothing twice', async () => {
    const state = JSON.parse(JSON.stringify(learner.learnedModel()));
    expect(JSON.stringify(state)).not.toMatch(/"data"/);
    const restored = new SessionLearner(learnerPorts, 0);
    restored.setLearnedModel(state);
    expect(restored.taughtClasses()).toEqual(['raccoon']);
    expect(restored.isMined(LABELLED[0])).toBe(true);
    described.length = 0;
    await restored.learnPending();
    expect(described).toEqual([]);
    const [descriptor] = await session.describeRegions(LEFT, [learned()[0].mask!]);
    expect(restored.classifier.classify(descriptor)).toEqual(learner.classifier.classify(descriptor));
  }, 300_000);
});
