import { useMemo, useState } from 'react';
import { boxGeometry, objectGeometry } from '../../annotations/objectGeometry';
import { isBox } from '../../annotations/annotation';
import { convertSelectedBoxToMask } from '../boxToMaskAction';
import { countVertices } from '../geometry/svgPath';
import { findSimilarObjects } from '../inference/similarObjects';
import { engineSession } from '../studioServices';
import { similarMessage } from '../inference/similarMessage';
import type { ImageEntry, ReviewState, Annotation } from '../../annotations/annotation';
import { studio, useStudio } from '../state/studioStore';
import { useDetail } from '../state/detailStore';
import { useOpenProject } from '../projects/projectStore';
import { useInferenceMode } from '../state/inferenceModeStore';
import { EyeIcon, TrashIcon } from '../icons/icons';
import { displayColor } from '../state/classOps';
import { classActions, edits, liveSelection } from '../state/editActions';
import { useEdit } from '../state/editStore';
import { countsLine, reviewCounts } from '../state/reviewOps';
import { isTag } from '../../annotations/annotation';
import { isProposal, isShown, reviewStateOf } from '../../annotations/review';
import { reviewDecision } from '../state/reviewActions';
import { ReviewButton } from './ReviewPanel';

/** Where "find similar" stands: one search at a time, its answer shown under the list. */
type SimilarSearch = { readonly running: string | null; readonly message: string | null };

export function ObjectList() {
  const doc = useStudio((s) => s.history.present);
  const image = doc.images.find((i) => i.id === doc.activeImageId);
  // Image tags are classes of the whole image: the image list shows them, this list the shapes.
  const all = image ? (doc.objects[image.id] ?? []).filter((o) => !isTag(o)) : [];
  // Rejected proposals are kept for undo and so they are not proposed again, but not listed.
  const objects = all.filter(isShown);
  const counts = reviewCounts(all);
  const tolerance = useDetail((s) => s.tolerance);
  const mode = useInferenceMode((s) => s.mode);
  const [search, setSearch] = useState<SimilarSearch>({ running: null, message: null });
  useEdit((s) => s.selection);
  const selection = liveSelection(doc);
  const selectedMultiPart = selection.length === 1 && (objects.find((o) => o.id === selection[0])?.polygons.length ?? 0) > 1;
  const selectedBox = selection.length === 1 && objects.some((o) => o.id === selection[0] && isBox(o));
  const [converting, setConverting] = useState(false);

  const findSimilar = (target: ImageEntry, object: Annotation) => {
    setSearch({ running: object.id, message: `Looking for objects like “${object.label}”…` });
    findSimilarObjects(engineSession, target, object, tolerance)
      .then((outcome) => setSearch({ running: null, message: similarMessage(object.label, outcome) }))
      .catch((error: unknown) => setSearch({ running: null, message: `Find similar failed: ${error instanceof Error ? error.message : String(error)}` }));
  };

  return (
    <section className="card objects" aria-label="Objects">
      {/* The counts name the panel ("0 objects · 1 to review"): a title before them would say "objects" twice. */}
      <h2 className="section-title">
        <span data-testid="object-counts">{countsLine(counts)}</span>
      </h2>
      <ReviewButton />
      {objects.length === 0 ? (
        <p className="hint">Accepted objects appear here.</p>
      ) : (
        <ul className="object-list">
          {objects.map((o) => image && <ObjectRow key={o.id} image={image} object={o} selected={selection.includes(o.id)} searching={search.running} onFindSimilar={findSimilar} />)}
        </ul>
      )}
      {selection.length > 0 && (
        <div className="selection-actions" role="group" aria-label="Selected objects">
          <span className="muted small">{selection.length} selected</span>
          <button type="button" className="small" disabled={selection.length < 2} title="Merge the selected objects into one (M)" onClick={edits.mergeSelected}>
            Merge
          </button>
          <button type="button" className="small" disabled={!selectedMultiPart} title="Split the selected object into its separate parts (S)" onClick={edits.splitSelected}>
            Split
          </button>
          <button type="button" className="small" title="Duplicate (Ctrl+D)" onClick={edits.duplicateSelected}>
            Duplicate
          </button>
          {selectedBox && (
            <button
              type="button"
              className="small"
              disabled={converting}
              title="Replace the box by the mask SAM finds in it (its box prompt); undo brings the box back"
              onClick={() => {
                setConverting(true);
                void convertSelectedBoxToMask().finally(() => setConverting(false));
              }}
            >
              {converting ? 'Finding the mask…' : 'Box → mask'}
            </button>
          )}
        </div>
      )}
      {mode !== 'local' && objects.length > 0 && <p className="hint small">Find similar runs on the local model only: switch to Local mode to use it.</p>}
      {search.message && (
        <p role="status" className="hint small" data-testid="similar-status">
          {search.message}
        </p>
      )}
    </section>
  );
}

interface ObjectRowProps {
  image: ImageEntry;
  object: Annotation;
  selected: boolean;
  /** The object a "find similar" search runs for, if any (one at a time: the worker runs one job). */
  searching: string | null;
  onFindSimilar: (image: ImageEntry, object: Annotation) => void;
}

function ObjectRow({ image, object, selected, searching, onFindSimilar }: ObjectRowProps) {
  const classes = useStudio((s) => s.history.present.classes);
  const imageId = image.id;
  const mode = useInferenceMode((s) => s.mode);
  const inProject = useOpenProject((s) => s.open !== null);
  const [editing, setEditing] = useState(false);
  const [draft, setDraft] = useState(object.label);
  // The area every export writes (the filled canonical outline, export/objectGeometry.ts), so the
  // list and the files never disagree; tests read it.
  const area = useMemo(() => (isBox(object) ? boxGeometry(object.box, image.width, image.height) : objectGeometry(object, image.width, image.height))?.area ?? 0, [object, image]);
  const vertices = countVertices(object.polygons);
  const commit = () => {
    setEditing(false);
    if (draft.trim() && draft.trim() !== object.label) studio.renameObject(imageId, object.id, draft.trim());
    else setDraft(object.label);
  };
  const proposal = isProposal(object);
  return (
    <li className={`object-row${object.visible ? '' : ' hidden-object'}${selected ? ' selected' : ''}${proposal ? ' proposal' : ''}`} data-testid="object-row"
      data-area={area}
      data-kind={object.kind ?? 'mask'}
      data-box={isBox(object) ? object.box.join(',') : undefined}
      data-object-id={object.id}
      data-review={reviewStateOf(object)}
      // A click anywhere on the row but its controls selects the object (the square button is the keyboard way).
      onClick={(e) => {
        if ((e.target as HTMLElement).closest('button, input, select')) return;
        if (e.shiftKey) useEdit.getState().toggle(object.id);
        else useEdit.getState().select([object.id]);
      }}
    >
      {/* The dot shows the colour the object is drawn in: its class's when it has one (recoloured in Classes). */}
      <input
        type="color"
        className="swatch"
        value={displayColor({ classes }, object)}
        disabled={object.classId != null && classes.some((c) => c.id === object.classId)}
        title={object.classId != null && classes.some((c) => c.id === object.classId) ? 'Drawn in its class colour: change it in Classes' : 'Object colour'}
        aria-label={`Colour of ${object.label}`}
        onChange={(e) => studio.setColor(imageId, object.id, e.target.value)}
      />
      <button
        type="button"
        className="icon select-object"
        aria-pressed={selected}
        aria-label={`Select ${object.label}`}
        title="Select (Shift+click adds to the selection)"
        onClick={(e) => (e.shiftKey ? useEdit.getState().toggle(object.id) : useEdit.getState().select([object.id]))}
        style={{ borderColor: displayColor({ classes }, object) }}
      />
      <div className="object-main">
        {editing ? (
          <input
            autoFocus
            className="rename"
            aria-label={`New name for ${object.label}`}
            value={draft}
            onChange={(e) => setDraft(e.target.value)}
            onBlur={commit}
            onKeyDown={(e) => {
              if (e.key === 'Enter') commit();
              if (e.key === 'Escape') {
                setDraft(object.label);
                setEditing(false);
              }
              e.stopPropagation();
            }}
          />
        ) : (
          <button type="button" className="label-button" title="Rename" aria-label={`Rename ${object.label}`} onClick={() => setEditing(true)}>
            {object.label}
          </button>
        )}
        <select className="small" aria-label={`Class of ${object.label}`} value={object.classId ?? ''} onChange={(e) => classActions.assign(imageId, [object.id], e.target.value ? Number(e.target.value) : null)}>
          <option value="">unlabelled</option>
          {classes.map((c) => (
            <option key={c.id} value={c.id}>
              {c.name}
            </option>
          ))}
        </select>
        {inProject && (
          <select
            className="small"
            aria-label={`Review of ${object.label}`}
            value={reviewStateOf(object)}
            onChange={(e) => studio.setReview(imageId, object.id, { state: e.target.value as ReviewState, ...(object.review?.source ? { source: object.review.source } : {}) })}
          >
            <option value="proposed">to review</option>
            <option value="accepted">accepted</option>
            <option value="rejected">rejected</option>
          </select>
        )}
        <span className="muted small">
          {proposal && <span className="chip to-review">to review</span>} {(object.confidence * 100).toFixed(0)}% · {isBox(object) ? `box ${Math.round(object.box[2])}×${Math.round(object.box[3])}` : `${vertices} vertices`} · {object.source}
          {object.receipt && (
            <>
              {' '}
              · <span title={`X-Service-Request-ID: ${object.receipt.requestId ?? 'n/a'}`}>{object.receipt.requestId?.slice(0, 12) ?? 'no request id'}</span>
              {object.receipt.refunded && ' · refunded'}
            </>
          )}
        </span>
        <button
          type="button"
          className="small"
          aria-label={`Find similar to ${object.label}`}
          disabled={mode !== 'local' || searching !== null}
          title={
            mode !== 'local'
              ? 'Find similar runs on the local model only: switch to Local mode to use it'
              : 'Find other objects like this one in the image (SAM image features; works for any kind of thing)'
          }
          onClick={() => onFindSimilar(image, object)}
        >
          {searching === object.id ? 'Finding…' : 'Find similar'}
        </button>
        {proposal && (
          <span className="review-row-actions">
            <button type="button" className="small" aria-label={`Accept ${object.label}`} title="Accept this proposal" onClick={() => reviewDecision(imageId, object.id, 'accepted')}>
              Accept
            </button>
            <button type="button" className="small" aria-label={`Reject ${object.label}`} title="Reject this proposal" onClick={() => reviewDecision(imageId, object.id, 'rejected')}>
              Reject
            </button>
          </span>
        )}
      </div>
      <button type="button" className="icon" aria-pressed={!object.visible} aria-label={object.visible ? `Hide ${object.label}` : `Show ${object.label}`} title={object.visible ? 'Hide' : 'Show'} onClick={() => studio.setVisible(imageId, object.id, !object.visible)}>
        <EyeIcon open={object.visible} />
      </button>
      <button type="button" className="icon danger" aria-label={`Delete ${object.label}`} title="Delete" onClick={() => studio.deleteObject(imageId, object.id)}>
        <TrashIcon />
      </button>
    </li>
  );
}
