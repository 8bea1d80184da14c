/**
 * Label a class from examples on the real models: SAM and every detector the text pipeline pools, on
 * a real COCO photo of four people (000000269316.jpg, from the shared evaluation folder) and on
 * chelsea.png. The rule's figures on COCO come from the eval (bench/evalCoco/exemplar.ts).
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rasterizeSegmentation, type CocoSegmentation } from '../../../bench/evalCoco/rasterize';
import { decodeImage } from '../adapters/nodeImage';
import { loadNodeEngine } from '../adapters/ortNode';
import { loadNodeDetectors } from '../adapters/textNode';
import type { SegmentationEngine } from '../engine';
import { maskIoU } from '../polygons';
import type { BinaryMask, RgbaImage } from '../types';
import type { ConceptDetector } from './detector';
import { findByExample, type ExemplarReport } from './exemplar';
import { DEFAULT_MIN_DETECTOR_SCORE } from './pipeline';
import { sharedPath } from '../../../test/support/sharedData';

const COCO = sharedPath('eval/coco-tiny');
const PEOPLE = '000000269316.jpg';

interface Coco {
  images: { id: number; file_name: string; width: number; height: number }[];
  annotations: { image_id: number; category_id: number; iscrowd: number; area: number; segmentation: CocoSegmentation }[];
}

let engine: SegmentationEngine;
let detectors: ConceptDetector[];
let photo: RgbaImage;
let photoKey: string;
/** The people of the photo, largest first (COCO's outlines, as a person would have drawn them). */
let people: BinaryMask[];

beforeAll(async () => {
  engine = await loadNodeEngine({ threads: 1 });
  detectors = await loadNodeDetectors({ threads: 1 });
  const coco = JSON.parse(readFileSync(`${COCO}/instances.json`, 'utf8')) as Coco;
  const info = coco.images.find((i) => i.file_name === PEOPLE)!;
  people = coco.annotations
    .filter((a) => a.image_id === info.id && a.category_id === 1 && !a.iscrowd)
    .sort((a, b) => b.area - a.area)
    .map((a) => rasterizeSegmentation(a.segmentation, info.width, info.height));
  photo = await decodeImage(readFileSync(`${COCO}/images/${PEOPLE}`));
  photoKey = (await engine.embed(photo, PEOPLE)).imageKey;
}, 180_000);

afterAll(async () => {
  await engine?.release();
  for (const d of detectors ?? []) await d.release();
});

/** What every answer must be: ranked, confident as the operating point asks, never an example again or a repeat. */
function expectCleanAnswers(report: ExemplarReport, examples: readonly BinaryMask[]) {
  const { answers } = report;
  for (let i = 1; i < answers.length; i++) expect(answers[i - 1].confidence).toBeGreaterThanOrEqual(answers[i].confidence);
  for (const a of answers) {
    for (const e of examples) expect(maskIoU(a.mask, e)).toBeLessThan(0.7);
    expect(a.confidence).toBeGreaterThanOrEqual(0);
    expect(a.confidence).toBeLessThanOrEqual(1);
  }
  for (let i = 0; i < answers.length; i++) for (let j = i + 1; j < answers.length; j++) expect(maskIoU(answers[i].mask, answers[j].mask)).toBeLessThan(0.7);
}

/** How many of `truth` some answer outlines at mask IoU ≥ 0.5. */
const foundOf = (report: ExemplarReport, truth: readonly BinaryMask[]) => truth.filter((t) => report.answers.some((a) => maskIoU(a.mask, t) >= 0.5)).length;

describe("findByExample, the 'detected' rule", () => {
  it('reads one person as "person" and proposes the other people from the detections, each with its class and calibrated score', async () => {
    const [example, ...others] = people;
    const report = await findByExample(engine, photoKey, [example], { rule: 'detected', image: photo, detectors, label: 'walker' });
    expect(report.classes).toEqual(['person']);
    expect(foundOf(report, others)).toBeGreaterThanOrEqual(2);
    for (const a of report.answers) {
      expect(a.source).toBe('detector');
      expect(a.detectorClass).toBe('person');
      expect(a.label).toBe('walker');
      expect(a.confidence).toBe(a.detectorScore);
      expect(a.confidence).toBeGreaterThanOrEqual(DEFAULT_MIN_DETECTOR_SCORE);
    }
    expectCleanAnswers(report, [example]);
  }, 120_000);

  it('with two examples proposes neither of them again, and still finds the others', async () => {
    const examples = people.slice(0, 2);
    const report = await findByExample(engine, photoKey, examples, { rule: 'detected', image: photo, detectors });
    expect(report.classes).toEqual(['person']);
    expect(foundOf(report, people.slice(2))).toBeGreaterThanOrEqual(1);
    expectCleanAnswers(report, examples);
  }, 120_000);

  it('falls back to appearance, saying so on every answer, for an example no detection coincides with, and without detectors', async () => {
    const chelsea = await decodeImage(readFileSync(sharedPath('samples/chelsea.png')));
    const { imageKey } = await engine.embed(chelsea);
    // A patch of the background in the top right corner: no detector's box is anything like it.
    const patch = new Uint8Array(chelsea.width * chelsea.height);
    for (let y = 10; y < 40; y++) for (let x = chelsea.width - 40; x < chelsea.width - 10; x++) patch[y * chelsea.width + x] = 1;
    const example = { width: chelsea.width, height: chelsea.height, data: patch };
    const report = await findByExample(engine, imageKey, [example], { rule: 'detected', image: chelsea, detectors });
    expect(report.classes).toEqual([]);
    for (const a of report.answers) {
      expect(a.source).toBe('appearance');
      expect(a.similarity).toBeGreaterThanOrEqual(0.7);
    }
    const [person] = people;
    const withoutDetectors = await findByExample(engine, photoKey, [person], { rule: 'detected' });
    expect(withoutDetectors.classes).toEqual([]);
    expect(withoutDetectors.answers.every((a) => a.source === 'appearance')).toBe(true);
    engine.forget(imageKey);
  }, 120_000);

  it('refuses a call without examples', async () => {
    await expect(findByExample(engine, photoKey, [], { image: photo, detectors })).rejects.toThrow(/at least one example/);
  });
});
