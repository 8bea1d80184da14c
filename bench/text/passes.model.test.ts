/**
 * The bench's extra looks at the photo on the real detectors and SAM, plugged into the text pipeline
 * through its detection rule hook (src/engine/text/pool.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadNodeCocoSsd } from '../../src/engine/adapters/textNode';
import type { SegmentationEngine } from '../../src/engine/engine';
import { boxIoU, type ConceptDetector, type ObjectDetector } from '../../src/engine/text/detector';
import { TextPipeline } from '../../src/engine/text/pipeline';
import type { RgbaImage } from '../../src/engine/types';
import { loadTextModels, releaseTextModels } from '../../test/support/textModels';
import { detectionRule, detectWithPasses } from './passes';

let engine: SegmentationEngine;
let detector: ObjectDetector;
let coffee: RgbaImage;

beforeAll(async () => {
  ({ engine, detector, coffee } = await loadTextModels());
});
afterAll(() => releaseTextModels({ engine, detector }));

describe('the detectors’ extra looks at coffee.png', () => {
  it('finds the cup again in the mirrored look, boxed at the same place once mirrored back', async () => {
    const [single] = await detector.detect(coffee, { minScore: 0.3 });
    const mirrorOnly = await detectWithPasses(detector, coffee, { mirror: true, tiles: false, fusion: 'wbf' }, { minScore: 0.3 });
    const cups = mirrorOnly.filter((d) => d.label === 'cup');
    // Both looks agree: one fused cup over the single look's box (a wrong mirroring would give two, or one elsewhere).
    expect(cups).toHaveLength(1);
    expect(boxIoU(cups[0].box, single.box)).toBeGreaterThan(0.8);
  });

  it('with every look (mirror and tiles) the pipeline still answers the one cup once, where the single look has it', async () => {
    const single = await new TextPipeline(engine, detector).run(coffee, ['cup'], 'coffee');
    const pipeline = new TextPipeline(engine, detector, { detection: detectionRule({ mirror: true, tiles: true, fusion: 'wbf' }) });
    const { results } = await pipeline.run(coffee, ['cup'], 'coffee');
    expect(results[0].instances).toHaveLength(1);
    expect(boxIoU(results[0].instances[0].box, single.results[0].instances[0].box)).toBeGreaterThan(0.8);
  });

  it('with WBF across two detectors the pooled cup is one box between theirs; one look each is the service’s answer', async () => {
    const cocoSsd: ConceptDetector = await loadNodeCocoSsd({ threads: 1 });
    try {
      const pooled = (rule?: ReturnType<typeof detectionRule>) =>
        new TextPipeline(engine, [detector, cocoSsd], rule ? { detection: rule } : {}).run(coffee, ['cup'], 'coffee');
      const service = await pooled();
      const oneLookEach = await pooled(detectionRule({ mirror: false, tiles: false, fusion: 'suppress' }));
      expect(oneLookEach.results[0].instances.map((t) => t.box)).toEqual(service.results[0].instances.map((t) => t.box));
      const fused = await pooled(detectionRule({ mirror: false, tiles: false, fusion: 'suppress' }, 'wbf'));
      expect(fused.results[0].instances).toHaveLength(1);
      expect(boxIoU(fused.results[0].instances[0].box, service.results[0].instances[0].box)).toBeGreaterThan(0.8);
    } finally {
      await cocoSsd.release();
    }
  });
});
