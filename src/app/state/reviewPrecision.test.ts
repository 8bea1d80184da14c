import { describe, expect, it } from 'vitest';
import { addImage, addObjects } from './documentOps';
import { emptyDocument } from './model';
import { proposedBy } from '../../annotations/review';
import { setReviewState } from './reviewOps';
import { acceptAllAdvice } from '../../engine/learn/acceptAll';
import { defaultLine, precisionLine, recordDecision, standingDecisions, type DecisionLog, type DecisionRecord } from './reviewPrecision';

/** `n` decisions at `confidence`, the first `right` of them right. */
const decisions = (n: number, confidence: number, right: number) => Array.from({ length: n }, (_, i) => ({ probability: confidence, correct: i < right }));

describe('precision of "accept all", measured on the person’s decisions', () => {
  it('a decision counts while it stands: undone or deleted, it no longer does; the latest decision on a proposal wins', () => {
    const proposal = (id: string) => ({ id, label: id, classId: null, confidence: 0.5, visible: true, polygons: [], source: 'text' as const, review: proposedBy('text-prompt') });
    let doc = addObjects(addImage(emptyDocument(), { id: 'a', name: 'a.png', width: 10, height: 10 }), 'a', [proposal('p1'), proposal('p2'), proposal('p3')]);
    const decide = (log: DecisionLog, record: DecisionRecord) => {
      doc = setReviewState(doc, record.imageId, [record.objectId], record.state);
      return recordDecision(log, record);
    };
    let log: DecisionLog = new Map();
    log = decide(log, { imageId: 'a', objectId: 'p1', state: 'accepted', confidence: 0.9, asProposed: true });
    log = decide(log, { imageId: 'a', objectId: 'p2', state: 'accepted', confidence: 0.7, asProposed: false });
    log = decide(log, { imageId: 'a', objectId: 'p3', state: 'accepted', confidence: 0.6, asProposed: true });
    log = decide(log, { imageId: 'a', objectId: 'p3', state: 'rejected', confidence: 0.6, asProposed: true });
    expect(standingDecisions(log, doc)).toEqual([
      { probability: 0.9, correct: true },
      // Accepted after a new class or shape: "accept all" would have let it in wrong.
      { probability: 0.7, correct: false },
      { probability: 0.6, correct: false },
    ]);
    // Undone (back to waiting) and deleted: gone from the measure.
    doc = setReviewState(doc, 'a', ['p1'], 'unreviewed');
    doc = { ...doc, objects: { a: doc.objects.a.filter((o) => o.id !== 'p2') } };
    expect(standingDecisions(log, doc)).toEqual([{ probability: 0.6, correct: false }]);
  });

  it('with too few decisions it says so instead of a number, and that there is no default yet', () => {
    const advice = acceptAllAdvice(decisions(6, 0.9, 6), null);
    expect(precisionLine(advice)).toBe('Precision at ≥ 80 % not measured yet: 6 of your decisions there, 10 needed.');
    expect(defaultLine(advice)).toBe(
      'Not enough decisions yet for a default: showing, with 95 % confidence, that at least 95 % of what it accepts is right takes at least 59 decisions at a threshold. Until then it starts at 80 %, which promises nothing beyond the precision measured there.',
    );
    // 20 of 20 right is measured and shown, and still not enough to be sure of 95 %.
    const measured = acceptAllAdvice(decisions(20, 0.9, 20), null);
    expect(precisionLine(measured)).toBe('Measured precision at ≥ 80 %: 100 %, on 20 of your decisions.');
    expect(defaultLine(measured)).toBe(defaultLine(advice));
  });

  it('many decisions, too many wrong: says so', () => {
    expect(defaultLine(acceptAllAdvice(decisions(200, 0.9, 170), null))).toBe(
      'No default: too many of your decisions were wrong for any threshold to show, with 95 % confidence, that at least 95 % of what it accepts is right. Until then it starts at 80 %, which promises nothing beyond the precision measured there.',
    );
  });

  it('a default sure of 95 %: where it comes from, and the precision measured at the one chosen', () => {
    // At 0.9: 80 of 80 right; at 0.7: 5 of 20; at 0.3: 0 of 10.
    const decided = [...decisions(80, 0.9, 80), ...decisions(20, 0.7, 5), ...decisions(10, 0.3, 0)];
    const advice = acceptAllAdvice(decided, null);
    expect(precisionLine(advice)).toBe('Measured precision at ≥ 90 %: 100 %, on 80 of your decisions.');
    expect(defaultLine(advice)).toBe('Default 90 %: the lowest threshold at which your decisions show, with 95 % confidence, that at least 95 % of what it accepts is right.');
    // The person's own threshold wins, and its precision is the one shown.
    expect(precisionLine(acceptAllAdvice(decided, 0.5))).toBe('Measured precision at ≥ 50 %: 85 %, on 100 of your decisions.');
  });
});
