import { describe, expect, it } from 'vitest';
import { MIN_NAMING_RECORDS, NamingBlend, namingRecord } from './namingBlend';

/** Three classes (indices 1–3): the vote favours `voted`, the detectors favour `detected`; the object is `truth`. */
function record(voted: number, detected: number, truth: number) {
  const vote = [0, 0, 0, 0];
  vote[voted] = 0.8;
  vote[voted === 1 ? 2 : 1] += 0.2;
  const detector = [0, 0, 0, 0];
  detector[detected] = 0.9;
  return namingRecord(vote, detector, truth);
}

/** A blend fitted on 40 objects: one in four like `rare`, the rest like `usual`. */
function fittedOn(rare: ReturnType<typeof record>, usual: ReturnType<typeof record>): NamingBlend {
  const blend = new NamingBlend();
  blend.record(Array.from({ length: 40 }, (_, i) => (i % 4 === 0 ? rare : usual)));
  blend.fit();
  return blend;
}

describe('NamingBlend', () => {
  it('uses the vote as it is until enough labelled objects were scored', () => {
    const blend = new NamingBlend();
    blend.record(Array.from({ length: MIN_NAMING_RECORDS - 1 }, () => record(1, 2, 2)));
    blend.fit();
    const vote = Float64Array.from([0, 0.8, 0.2, 0]);
    expect(blend.fitted).toBeUndefined();
    expect(blend.blend(vote, [0, 0, 0.9, 0])).toBe(vote);
  });

  it('follows the detectors where the person\'s objects said they were right and the vote wrong', () => {
    // The detectors name the object right three times in four, the vote once in four.
    const blend = fittedOn(record(3, 2, 3), record(1, 2, 2));
    const named = blend.blend(Float64Array.from([0, 0.8, 0.2, 0]), [0, 0, 0.9, 0]);
    expect(named[2]).toBeGreaterThan(named[1]);
    expect(named[0]).toBe(0);
    expect(named.reduce((s, p) => s + p, 0)).toBeCloseTo(1, 10);
  });

  it('follows the vote where the person\'s objects said the detectors were wrong', () => {
    const blend = fittedOn(record(3, 2, 2), record(1, 3, 1));
    const named = blend.blend(Float64Array.from([0, 0.8, 0.2, 0]), [0, 0, 0, 0.9]);
    expect(named[1]).toBeGreaterThan(named[3]);
  });

  it('keeps its records sparse, restores the same weights from JSON, and drops a forgotten class\'s records', () => {
    const blend = fittedOn(record(3, 2, 3), record(1, 2, 2));
    const saved = JSON.parse(JSON.stringify(blend.toJSON()));
    expect(saved.records[0].entries.length).toBeLessThanOrEqual(3);
    const copy = NamingBlend.fromJSON(saved);
    expect(copy.fitted!.vote).toBeCloseTo(blend.fitted!.vote, 6);
    expect(copy.fitted!.detector).toBeCloseTo(blend.fitted!.detector, 6);
    copy.forgetClass(3);
    expect(copy.toJSON().records).toHaveLength(30);
    expect(copy.toJSON().records.every((r) => r.classes === 3 && r.entries.every(([k]) => k < 3))).toBe(true);
  });
});
