import { useRef } from 'react';
import { classById } from '../state/classOps';
import { isProposal } from '../../annotations/review';
import { objectOf, proposalsAtLeast, reviewQueue, WHOLE_QUEUE, type ClassFilter, type QueueOrder } from '../state/reviewOps';
import { acceptAllNow, review } from '../state/reviewActions';
import { defaultLine, precisionLine } from '../state/reviewPrecision';
import { useReview } from '../state/reviewStore';
import { useStudio } from '../state/studioStore';
import { ClassCombobox, type ClassPick } from './ClassCombobox';

const SOURCE_WORDS = { 'text-prompt': 'text prompt', 'find-similar': 'find similar', 'segment-everything': 'segment everything', import: 'import', 'learned-classes': 'your labels' } as const;

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

const CLASS_FILTER_OPTIONS = [
  { key: 'all', label: 'All classes' },
  { key: 'unlabelled', label: 'No class' },
];

const ORDER_WORDS: Readonly<Record<QueueOrder, string>> = { image: 'By image', uncertain: 'Teaches the most (least certain first)' };

const toPercent = (value: number) => Math.round(value * 100);
/** A typed percentage as a confidence, kept within 0–100 %. */
const fromPercent = (text: string, fallback: number) => (text.trim() === '' || !Number.isFinite(Number(text)) ? fallback : Math.min(100, Math.max(0, Number(text))) / 100);

/**
 * The review queue: the proposal shown (the canvas zooms to it, outlined in yellow), its class by
 * type-ahead, its decision buttons with their keys, the queue's filters and order, and "accept all at
 * or above" a confidence with the precision measured at it. Every decision is one undo step.
 */
export function ReviewPanel() {
  const open = useReview((s) => s.open);
  const current = useReview((s) => s.current);
  const view = useReview((s) => s.view);
  const picking = useReview((s) => s.picking);
  // The advice below reads these: subscribing re-renders the panel when the person decides or sets a threshold.
  useReview((s) => s.decisions);
  const chosenThreshold = useReview((s) => s.chosenThreshold);
  const doc = useStudio((s) => s.history.present);
  const panel = useRef<HTMLElement>(null);
  if (!open) return null;
  const queue = reviewQueue(doc, view);
  const waiting = reviewQueue(doc).length;
  const object = current ? objectOf(doc, current) : undefined;
  const shown = object && isProposal(object) ? object : undefined;
  const position = current ? queue.findIndex((q) => q.imageId === current.imageId && q.objectId === current.objectId) : -1;
  const imageName = current && doc.images.find((i) => i.id === current.imageId)?.name;
  const advice = acceptAllNow();
  const above = proposalsAtLeast(doc, advice.threshold, view).length;
  const percent = toPercent(advice.threshold);
  const filtered = view.classFilter !== WHOLE_QUEUE.classFilter || view.minConfidence > WHOLE_QUEUE.minConfidence || view.maxConfidence < WHOLE_QUEUE.maxConfidence;
  const filterClass = typeof view.classFilter === 'number' ? classById(doc, view.classFilter) : undefined;
  const backToPanel = () => panel.current?.focus();
  const pickClass = (pick: ClassPick) => {
    if ('classId' in pick) review.reclass({ classId: pick.classId });
    else if ('newName' in pick) review.reclass({ newName: pick.newName });
  };
  const pickFilter = (pick: ClassPick) => {
    const classFilter: ClassFilter | undefined = 'classId' in pick ? pick.classId : 'option' in pick ? (pick.option as ClassFilter) : undefined;
    if (classFilter !== undefined) review.setView({ classFilter });
  };
  return (
    <section className="card review-panel" id="review-panel" aria-label="Review" ref={panel} tabIndex={-1}>
      <div className="review-head">
        <h2 className="section-title">
          {/* "139 to review" says what the panel is; "Review 139 to review" said it twice. */}
          <span data-testid="review-count">{filtered ? `${queue.length} of ${waiting}` : queue.length} to review</span>
        </h2>
        <button type="button" className="icon" aria-label="Close review" title="Close (R or Esc)" onClick={review.close}>
          ✕
        </button>
      </div>
      {queue.length === 0 ? (
        <p className="hint" role="status">
          {filtered ? 'Nothing to review with these filters.' : 'Nothing to review: every proposal has been accepted or rejected.'}
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
      <ClassCombobox
        label="Class (/)"
        classes={doc.classes}
        placeholder={shown ? (classById(doc, shown.classId)?.name ?? 'no class') : 'no proposal shown'}
        canCreate
        focusRequested={picking}
        onFocusChange={(focused) => useReview.getState().setPicking(focused)}
        onPick={pickClass}
        onDone={backToPanel}
      />
      <div className="review-filters" role="group" aria-label="Queue filters">
        <ClassCombobox label="Show" classes={doc.classes} placeholder={filterClass?.name ?? CLASS_FILTER_OPTIONS.find((o) => o.key === view.classFilter)?.label ?? ''} extraOptions={CLASS_FILTER_OPTIONS} onPick={pickFilter} onDone={backToPanel} />
        <label className="field">
          Order
          <select value={view.order} onChange={(e) => review.setView({ order: e.target.value as QueueOrder })}>
            {(Object.keys(ORDER_WORDS) as QueueOrder[]).map((order) => (
              <option key={order} value={order}>
                {ORDER_WORDS[order]}
              </option>
            ))}
          </select>
        </label>
        <label className="field">
          Confidence from %
          <input type="number" min={0} max={100} step={5} value={toPercent(view.minConfidence)} onChange={(e) => review.setView({ minConfidence: fromPercent(e.target.value, 0) })} />
        </label>
        <label className="field">
          to %
          <input type="number" min={0} max={100} step={5} value={toPercent(view.maxConfidence)} onChange={(e) => review.setView({ maxConfidence: fromPercent(e.target.value, 1) })} />
        </label>
      </div>
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
          <input type="range" min={0} max={100} step={1} value={percent} aria-label="Accept-all confidence" onChange={(e) => useReview.getState().setThreshold(Number(e.target.value) / 100)} />
        </label>
        <button type="button" disabled={above === 0} onClick={() => review.acceptAllAtThreshold()} title={`Accept every proposal ${filtered ? 'the filters show' : 'of the session'} at or above this confidence (Shift+Y)`}>
          Accept all {above} ≥ {percent} %
        </button>
      </div>
      <p className="hint small" data-testid="accept-all-precision">
        {precisionLine(advice)}
      </p>
      <p className="hint small" data-testid="accept-all-default">
        {defaultLine(advice)}{' '}
        {chosenThreshold !== null && (
          <button type="button" className="small" onClick={() => useReview.getState().setThreshold(null)}>
            Use the default
          </button>
        )}
      </p>
      {shown && <p className="hint small">Fix: a click (point or box tool) or the brush refines the proposal; Y or Enter then accepts its new shape.</p>}
    </section>
  );
}
