import { PROPOSAL_SOURCES, REVIEW_STATES, type Annotation, type ObjectReview, type ProposalSource, type ReviewState } from './annotation';

/** An annotation without `review` is accepted: made by hand. */
export const reviewStateOf = (annotation: Pick<Annotation, 'review'>): ReviewState => annotation.review?.state ?? 'accepted';
export const isProposal = (annotation: Pick<Annotation, 'review'>) => reviewStateOf(annotation) === 'unreviewed';
export const isAccepted = (annotation: Pick<Annotation, 'review'>) => reviewStateOf(annotation) === 'accepted';
/** Drawn, listed and hit by clicks: everything but rejected annotations. */
export const isShown = (annotation: Pick<Annotation, 'review'>) => reviewStateOf(annotation) !== 'rejected';

export const proposedBy = (source: ProposalSource): ObjectReview => ({ state: 'unreviewed', source });

/** Files written before the vocabulary was one call a proposal waiting for review `proposed`. */
const LEGACY_STATES: Readonly<Record<string, ReviewState>> = { proposed: 'unreviewed' };

/**
 * A review state and source as a file or a request wrote them (an unknown source is dropped, the
 * state kept). Accepted with no source is an annotation made by hand: no review.
 */
export function reviewFrom(state: unknown, source: unknown): ObjectReview | undefined {
  const known = typeof state === 'string' ? (LEGACY_STATES[state] ?? state) : undefined;
  if (!REVIEW_STATES.includes(known as ReviewState)) return undefined;
  const reviewState = known as ReviewState;
  const proposer = PROPOSAL_SOURCES.includes(source as ProposalSource) ? (source as ProposalSource) : undefined;
  if (proposer) return { state: reviewState, source: proposer };
  return reviewState === 'accepted' ? undefined : { state: reviewState };
}
