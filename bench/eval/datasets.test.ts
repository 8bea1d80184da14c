import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { listSamples } from './datasets';

const GRABCUT = '../shared/eval/grabcut';

describe.skipIf(!existsSync(GRABCUT))('GrabCut reader on the real data', () => {
  it('pairs all 50 photos with masks of the same size, each with an object and the ignore band', async () => {
    const samples = await listSamples('grabcut', GRABCUT);
    expect(samples).toHaveLength(50);
    let withIgnoreBand = 0;
    for (const sample of samples) {
      const [image, truth] = await Promise.all([sample.loadImage(), sample.loadTruth()]);
      expect([image.width, image.height], sample.name).toEqual([truth.width, truth.height]);
      expect(image.data.length).toBe(image.width * image.height * 4);
      expect(truth.labels.includes(1), sample.name).toBe(true);
      if (truth.labels.includes(-1)) withIgnoreBand++;
    }
    expect(withIgnoreBand).toBe(42);
  });
});
