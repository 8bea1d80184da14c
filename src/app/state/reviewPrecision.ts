import { CONFIDENCE, decisionsNeeded, MIN_DECISIONS, TARGET_PRECISION, UNMEASURED_THRESHOLD, type AcceptAllAdvice, type ScoredDecision } from '../../engine/learn/acceptAll';
import { reviewStateOf } from '../../annotations/review';
import type { StudioDocument } from './model';
import { itemKey, objectOf, type QueueItem } from './reviewOps';

/**
 * What "Accept all ≥ P %" would let through, measured on the person's own decisions in this
 * session: each proposal they accepted or rejected one by one, with the confidence it had when they
 * decided (the learned model re-scores waiting proposals, so the confidence is kept here, not read
 * back later). Bulk accepts are not decisions: nobody looked at those. The rule that advises on them
 * is the engine's (acceptAll.ts), the one the learn eval measures.
 */

export interface DecisionRecord extends QueueItem {
  readonly state: 'accepted' | 'rejected';
  /** The proposal's confidence when it was decided. */
  readonly confidence: number;
  /** Accepted just as proposed: not re-classed, not re-shaped. Only those would "accept all" have got right. */
  readonly asProposed: boolean;
}

/** The latest decision on each proposal, by `imageId/objectId`. */
export type DecisionLog = ReadonlyMap<string, DecisionRecord>;

export function recordDecision(log: DecisionLog, record: DecisionRecord): DecisionLog {
  return new Map(log).set(itemKey(record), record);
}

/** The log without these proposals' decisions. */
export function forgetDecisions(log: DecisionLog, items: readonly QueueItem[]): DecisionLog {
  const next = new Map(log);
  for (const item of items) next.delete(itemKey(item));
  return next.size === log.size ? log : next;
}

/**
 * The decisions that still stand in the document, as calibration reads them (the confidence, and
 * whether the proposal was right as proposed). One undone, or whose object was deleted, no longer counts.
 */
export function standingDecisions(log: DecisionLog, doc: Pick<StudioDocument, 'objects'>): ScoredDecision[] {
  return [...log.values()]
    .filter((record) => {
      const object = objectOf(doc, record);
      return object !== undefined && reviewStateOf(object) === record.state;
    })
    .map((record) => ({ probability: record.confidence, correct: record.state === 'accepted' && record.asProposed }));
}

const percent = (value: number) => `${Math.round(value * 100)} %`;

/** The panel's line on the precision at the threshold: a number only when enough decisions measure it. */
export function precisionLine(advice: AcceptAllAdvice): string {
  const at = `≥ ${percent(advice.threshold)}`;
  if (advice.precision === undefined) {
    return `Precision at ${at} not measured yet: ${advice.count} of your decisions there, ${MIN_DECISIONS} needed.`;
  }
  return `Measured precision at ${at}: ${percent(advice.precision)}, on ${advice.count} of your decisions.`;
}

/** The panel's line on where the default threshold comes from, or why there is none yet. */
export function defaultLine(advice: AcceptAllAdvice): string {
  const sure = `${percent(TARGET_PRECISION)} precision at ${percent(CONFIDENCE)} confidence`;
  if (advice.measuredDefault !== undefined) return `Default ${percent(advice.measuredDefault)}: the lowest threshold with ${sure}.`;
  const until = `until one has, the default is ${percent(UNMEASURED_THRESHOLD)}.`;
  if (advice.noDefaultBecause === 'low-precision') return `No default: too many of your decisions were wrong for any threshold to show ${sure}; ${until}`;
  return `Not enough decisions yet for a default: no threshold shows ${sure} (that takes at least ${decisionsNeeded()} decisions there); ${until}`;
}
