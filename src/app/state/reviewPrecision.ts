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

/**
 * The panel's line on where the default threshold comes from, or why there is none yet, in terms of what
 * it promises: the default is sure, at CONFIDENCE, that TARGET_PRECISION of what it accepts is right;
 * the fallback promises nothing beyond the precision measured at it.
 */
export function defaultLine(advice: AcceptAllAdvice): string {
  const promise = `at least ${percent(TARGET_PRECISION)} of what it accepts is right`;
  if (advice.measuredDefault !== undefined) {
    return `Default ${percent(advice.measuredDefault)}: the lowest threshold at which your decisions show, with ${percent(CONFIDENCE)} confidence, that ${promise}.`;
  }
  const until = `Until then it starts at ${percent(UNMEASURED_THRESHOLD)}, which promises nothing beyond the precision measured there.`;
  if (advice.noDefaultBecause === 'low-precision') {
    return `No default: too many of your decisions were wrong for any threshold to show, with ${percent(CONFIDENCE)} confidence, that ${promise}. ${until}`;
  }
  return `Not enough decisions yet for a default: showing, with ${percent(CONFIDENCE)} confidence, that ${promise} takes at least ${decisionsNeeded()} decisions at a threshold. ${until}`;
}
