import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeImage } from '../adapters/nodeImage';
import { loadNodeCocoSsd, loadNodeDetector } from '../adapters/textNode';
import { boxIoU, type ConceptDetector } from './detector';
import { detectWithPasses } from './passes';
import { sharedPath } from '../../../test/support/sharedData';

/**
 * Every provisioned detector on the same real photos: a new detector is one row here. The cat in
 * chelsea.png covers the left ~90% of the photo; each detector's box edges are held to what its
 * input framing (letterboxed or stretched) allows.
 */
const DETECTORS: { name: string; load: () => Promise<ConceptDetector>; catLeftBelow: number; catRightAbove: number }[] = [
  { name: 'centernet', load: () => loadNodeDetector({ threads: 1 }), catLeftBelow: 20, catRightAbove: 350 },
  { name: 'coco-ssd', load: () => loadNodeCocoSsd({ threads: 1 }), catLeftBelow: 40, catRightAbove: 330 },
];

describe.each(DETECTORS)('$name on real photos', ({ name, load, catLeftBelow, catRightAbove }) => {
  let detector: ConceptDetector;
  beforeAll(async () => {
    detector = await load();
  });
  afterAll(async () => {
    await detector.release();
  });

  it('sees the cat in chelsea.png and the cup in coffee.png, each as the best detection, and names itself', async () => {
    const chelsea = await decodeImage(readFileSync(sharedPath('samples/chelsea.png')));
    const [cat] = await detector.detect(chelsea, { minScore: 0.3 });
    expect(cat.label).toBe('cat');
    expect(cat.detector).toBe(name);
    expect(cat.box.x0).toBeLessThan(catLeftBelow);
    expect(cat.box.x1).toBeGreaterThan(catRightAbove);
    const coffee = await decodeImage(readFileSync(sharedPath('samples/coffee.png')));
    const [cup] = await detector.detect(coffee, { minScore: 0.3 });
    expect(cup.label).toBe('cup');
  });

  it('finds the cup in coffee.png again in the mirrored look, boxed at the same place once mirrored back', async () => {
    const coffee = await decodeImage(readFileSync(sharedPath('samples/coffee.png')));
    const [single] = await detector.detect(coffee, { minScore: 0.3 });
    const mirrorOnly = await detectWithPasses(detector, coffee, { mirror: true, tiles: false, fusion: 'wbf' }, { minScore: 0.3 });
    const cups = mirrorOnly.filter((d) => d.label === 'cup');
    // Both looks agree: one fused cup over the single look's box (a wrong mirroring would give two, or one elsewhere).
    expect(cups).toHaveLength(1);
    expect(boxIoU(cups[0].box, single.box)).toBeGreaterThan(0.8);
  });
});
