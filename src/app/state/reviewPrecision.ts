import { lowestThresholdWithPrecision, precisionAt } from '../../engine/learn/calibration';
import { reviewStateOf } from '../../annotations/review';
import type { StudioDocument } from './model';
import { itemKey, objectOf, type QueueItem } from './reviewOps';

/**
 * What "Accept all ≥ P %" would let through, measured on the person's own decisions in this
 * session: each proposal they accepted or rejected one by one, with the confidence it had when they
 * decided (the learned model re-scores waiting proposals, so the confidence is kept here, not read
 * back later). Bulk accepts are not decisions: nobody looked at those.
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
export function standingDecisions(log: DecisionLog, doc: Pick<StudioDocument, 'objects'>): { probability: number; correct: boolean }[] {
  return [...log.values()]
    .filter((record) => {
      const object = objectOf(doc, record);
      return object !== undefined && reviewStateOf(object) === record.state;
    })
    .map((record) => ({ probability: record.confidence, correct: record.state === 'accepted' && record.asProposed }));
}

/** Fewer decisions at or above a threshold than this give no precision worth showing. */
export const MIN_DECISIONS = 10;
/** The precision the default threshold is chosen for. */
export const TARGET_PRECISION = 0.95;
/** The threshold while the decisions measure none. */
export const UNMEASURED_THRESHOLD = 0.8;

export interface AcceptAllAdvice {
  /** The threshold "accept all" uses: the person's own, else the measured default. */
  readonly threshold: number;
  /** The lowest threshold with ≥ TARGET_PRECISION measured precision; undefined while none qualifies. */
  readonly measuredDefault: number | undefined;
  /** Precision measured at `threshold`; undefined with fewer than MIN_DECISIONS there. */
  readonly precision: number | undefined;
  /** Decisions at or above `threshold`. */
  readonly count: number;
}

export function acceptAllAdvice(decided: readonly { probability: number; correct: boolean }[], chosen: number | null): AcceptAllAdvice {
  const measuredDefault = lowestThresholdWithPrecision(decided, TARGET_PRECISION, MIN_DECISIONS);
  const threshold = chosen ?? measuredDefault ?? UNMEASURED_THRESHOLD;
  const { precision, count } = precisionAt(decided, threshold);
  return { threshold, measuredDefault, precision: count >= MIN_DECISIONS ? precision : undefined, count };
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

/** The panel's line on where the default threshold comes from. */
export function defaultLine(advice: AcceptAllAdvice): string {
  if (advice.measuredDefault === undefined) return `No threshold has ${percent(TARGET_PRECISION)} measured precision yet; until one has, the default is ${percent(UNMEASURED_THRESHOLD)}.`;
  return `Default ${percent(advice.measuredDefault)}: the lowest threshold with ≥ ${percent(TARGET_PRECISION)} measured precision.`;
}
