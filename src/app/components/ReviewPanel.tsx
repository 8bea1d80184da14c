import { classById } from '../state/classOps';
import { isProposal } from '../../annotations/review';
import { objectOf, proposalsAtLeast, reviewQueue } from '../state/reviewOps';
import { review } from '../state/reviewActions';
import { useReview } from '../state/reviewStore';
import { useStudio } from '../state/studioStore';

const SOURCE_WORDS = { 'text-prompt': 'text prompt', 'find-similar': 'find similar', 'segment-everything': 'segment everything', import: 'import' } as const;

/** Opens and closes Review (R), saying how many proposals wait. */
export function ReviewButton() {
  const open = useReview((s) => s.open);
  const waiting = useStudio((s) => reviewQueue(s.history.present).length);
  return (
    <button type="button" className="small" aria-pressed={open} aria-controls={open ? 'review-panel' : undefined} title="Walk the proposals one by one from the keyboard (R)" onClick={review.toggle} disabled={!open && waiting === 0}>
      Review{waiting ? ` ${waiting}` : ''}
    </button>
  );
}

/**
 * The review queue: the proposal shown (the canvas zooms to it, outlined in yellow), its decision
 * buttons with their keys, and "accept all at or above" a confidence. Every decision is one undo step.
 */
export function ReviewPanel() {
  const open = useReview((s) => s.open);
  const current = useReview((s) => s.current);
  const threshold = useReview((s) => s.threshold);
  const doc = useStudio((s) => s.history.present);
  if (!open) return null;
  const queue = reviewQueue(doc);
  const object = current ? objectOf(doc, current) : undefined;
  const shown = object && isProposal(object) ? object : undefined;
  const position = current ? queue.findIndex((q) => q.imageId === current.imageId && q.objectId === current.objectId) : -1;
  const imageName = current && doc.images.find((i) => i.id === current.imageId)?.name;
  const above = proposalsAtLeast(doc, threshold).length;
  const percent = Math.round(threshold * 100);
  return (
    <section className="card review-panel" id="review-panel" aria-label="Review">
      <div className="review-head">
        <h2 className="section-title">
          {/* "139 to review" says what the panel is; "Review 139 to review" said it twice. */}
          <span data-testid="review-count">{queue.length} to review</span>
        </h2>
        <button type="button" className="icon" aria-label="Close review" title="Close (R or Esc)" onClick={review.close}>
          ✕
        </button>
      </div>
      {queue.length === 0 ? (
        <p className="hint" role="status">
          Nothing to review: every proposal has been accepted or rejected.
        </p>
      ) : shown && current ? (
        <p className="review-current" role="status" data-testid="review-current">
          <strong>{shown.label}</strong>
          {classById(doc, shown.classId) ? ` · ${classById(doc, shown.classId)!.name}` : ''} · {(shown.confidence * 100).toFixed(0)}%
          {shown.review?.source ? ` · ${SOURCE_WORDS[shown.review.source]}` : ''} · {position + 1} of {queue.length}
          {imageName ? ` · ${imageName}` : ''}
        </p>
      ) : (
        <p className="hint" role="status">
          {current && object ? `${object.label}: ${object.review?.state ?? 'accepted'}. ` : ''}Press J for the next proposal.
        </p>
      )}
      <div className="row review-actions">
        <button type="button" className="primary" disabled={!shown} onClick={() => review.accept()} title="Accept (Y or Enter)">
          Accept <kbd>Y</kbd>
        </button>
        <button type="button" disabled={!shown} onClick={() => review.reject()} title="Reject (Delete)">
          Reject <kbd>Del</kbd>
        </button>
        <button type="button" disabled={!shown} onClick={() => review.fix()} title="Fix: a click or the brush refines it, then Accept (C)">
          Fix <kbd>C</kbd>
        </button>
      </div>
      <div className="row review-actions">
        <button type="button" disabled={queue.length === 0} onClick={review.previous} title="Previous proposal (K)">
          Previous <kbd>K</kbd>
        </button>
        <button type="button" disabled={queue.length === 0} onClick={review.next} title="Next proposal (J)">
          Next <kbd>J</kbd>
        </button>
      </div>
      <div className="row review-threshold">
        <label className="field">
          Confidence at least {percent} %
          <input type="range" min={0} max={100} step={5} value={percent} aria-label="Accept-all confidence" onChange={(e) => useReview.getState().setThreshold(Number(e.target.value) / 100)} />
        </label>
        <button type="button" disabled={above === 0} onClick={() => review.acceptAllAtThreshold()} title="Accept every proposal of the session at or above this confidence (Shift+Y)">
          Accept all {above} ≥ {percent} %
        </button>
      </div>
      {shown && <p className="hint small">Fix: a click (point or box tool) or the brush refines the proposal; Y or Enter then accepts its new shape.</p>}
    </section>
  );
}
