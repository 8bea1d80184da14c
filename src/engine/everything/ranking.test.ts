import { describe, expect, it } from 'vitest';
import { rankScore, withLookEvidence } from './ranking';

const box = { x0: 10, y0: 10, x1: 50, y1: 50 };

describe('rankScore', () => {
  it("is the decoder's confidence alone under 'mask'", () => {
    expect(rankScore({ confidence: 0.8, strongestDetectorScore: 0.02 }, { ranking: 'mask', weakestBoxScore: 0.02 })).toBe(0.8);
  });

  it("puts a well-boxed proposal before a weakly boxed one the decoder rates a little higher under 'mask and detector'", () => {
    const weakBox = rankScore({ confidence: 0.9, strongestDetectorScore: 0.03 }, { ranking: 'mask and detector', weakestBoxScore: 0.02 });
    const strongBox = rankScore({ confidence: 0.8, strongestDetectorScore: 0.6 }, { ranking: 'mask and detector', weakestBoxScore: 0.02 });
    expect(strongBox).toBeGreaterThan(weakBox);
    expect(strongBox).toBeCloseTo(0.8 * Math.sqrt(0.6), 10);
  });

  it('counts a proposal no box asked for as the weakest box the rule asks', () => {
    expect(rankScore({ confidence: 0.5 }, { ranking: 'mask and detector', weakestBoxScore: 0.04 })).toBeCloseTo(0.5 * 0.2, 10);
  });
});

describe('withLookEvidence', () => {
  const rule = { ranking: 'mask and detector', weakestBoxScore: 0.02 } as const;
  const proposal = (strongestDetectorScore: number, at = box) => ({ confidence: 0.7, strongestDetectorScore, box: at, rankScore: rankScore({ confidence: 0.7, strongestDetectorScore }, rule) });

  it("raises a proposal's strongest score to a repeating look's higher one, and leaves the others as they are", () => {
    const repeated = proposal(0.05);
    const elsewhere = proposal(0.05, { x0: 200, y0: 200, x1: 240, y1: 240 });
    const [raised, untouched] = withLookEvidence([repeated, elsewhere], [{ box: { x0: 11, y0: 10, x1: 50, y1: 51 }, score: 0.4 }], 0.7, rule);
    expect(raised.strongestDetectorScore).toBe(0.4);
    expect(untouched).toBe(elsewhere);
  });

  it('ranks a raised proposal by its new evidence', () => {
    const [raised] = withLookEvidence([proposal(0.05)], [{ box, score: 0.4 }], 0.7, rule);
    expect(raised.rankScore).toBe(rankScore({ confidence: 0.7, strongestDetectorScore: 0.4 }, rule));
  });

  it('never lowers a score, and a look overlapping at or under the NMS IoU is another object', () => {
    const strong = proposal(0.9);
    expect(withLookEvidence([strong], [{ box, score: 0.3 }], 0.7, rule)[0]).toBe(strong);
    const weak = proposal(0.05);
    // Box IoU 0.5 with `box`: half of it.
    expect(withLookEvidence([weak], [{ box: { x0: 10, y0: 10, x1: 30, y1: 50 }, score: 0.9 }], 0.7, rule)[0]).toBe(weak);
  });
});
