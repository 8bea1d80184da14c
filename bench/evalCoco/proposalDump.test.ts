import { describe, expect, it } from 'vitest';
import type { Proposal } from '../../src/engine/everything/segmentEverything';
import { boxRegion } from './metrics';
import { proposalDumpLine } from './proposalDump';

const W = 64;
const H = 64;
const rect = (x0: number, y0: number, x1: number, y1: number) => boxRegion({ x0, y0, x1, y1 }, W, H);

function proposal(id: number, box: { x0: number; y0: number; x1: number; y1: number }, detectorScore: number): Proposal {
  const region = rect(box.x0, box.y0, box.x1, box.y1);
  return {
    id,
    mask: region.mask,
    area: region.area,
    box,
    confidence: 0.8,
    rankScore: 0.8 * Math.sqrt(detectorScore),
    predictedIoU: 0.9,
    stability: 0.9,
    source: 'detector',
    label: 'cup',
    detectorScore,
    strongestDetectorScore: detectorScore,
    prompt: { box: { x: (box.x0 + box.x1) / 2, y: (box.y0 + box.y1) / 2, width: box.x1 - box.x0, height: box.y1 - box.y0 } },
  };
}

describe('proposalDumpLine', () => {
  it('lists every proposal with what a ranking reads, and its IoU with the instances it comes near only', () => {
    const gts = [
      { region: rect(0, 0, 10, 10), crowd: false, area: 100 },
      { region: rect(40, 40, 60, 60), crowd: true, area: 400 },
    ];
    // The first covers the first instance exactly and nothing of the crowd region; the second lies far from both.
    const proposals = [proposal(0, { x0: 0, y0: 0, x1: 10, y1: 10 }, 0.5), proposal(1, { x0: 20, y0: 20, x1: 30, y1: 30 }, 0.03)];
    const line = JSON.parse(proposalDumpLine('a.jpg', 'thorough', gts, proposals, proposals.map((p) => rect(p.box.x0, p.box.y0, p.box.x1, p.box.y1))));
    expect(line.file).toBe('a.jpg');
    expect(line.rule).toBe('thorough');
    expect(line.instances).toEqual([{ area: 100, crowd: false }, { area: 400, crowd: true }]);
    expect(line.proposals.map((p: { id: number }) => p.id)).toEqual([0, 1]);
    expect(line.proposals[0]).toMatchObject({ confidence: 0.8, detectorScore: 0.5, strongestDetectorScore: 0.5, tile: false, ious: { 0: 1 } });
    expect(line.proposals[1].ious).toEqual({});
  });
});
