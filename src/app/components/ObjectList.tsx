import { useState } from 'react';
import { countVertices } from '../geometry/svgPath';
import { tracedPolygons } from '../geometry/traced';
import type { SegObject } from '../state/model';
import { studio, useStudio } from '../state/studioStore';
import { useUi } from '../state/uiStore';
import { EyeIcon, TrashIcon } from './icons';

export function ObjectList() {
  const doc = useStudio((s) => s.history.present);
  const image = doc.images.find((i) => i.id === doc.activeImageId);
  const objects = image ? (doc.objects[image.id] ?? []) : [];
  return (
    <section className="card objects" aria-label="Objects">
      <h2 className="section-title">
        Objects <span className="muted">{objects.length}</span>
      </h2>
      {objects.length === 0 ? (
        <p className="hint">Accepted objects appear here.</p>
      ) : (
        <ul className="object-list">
          {objects.map((o) => image && <ObjectRow key={o.id} imageId={image.id} object={o} />)}
        </ul>
      )}
    </section>
  );
}

function ObjectRow({ imageId, object }: { imageId: string; object: SegObject }) {
  const [editing, setEditing] = useState(false);
  const [draft, setDraft] = useState(object.label);
  const tolerance = useUi((s) => s.tolerance);
  const vertices = countVertices(tracedPolygons(object.mask, object.polygons, tolerance));
  const commit = () => {
    setEditing(false);
    if (draft.trim() && draft.trim() !== object.label) studio.renameObject(imageId, object.id, draft.trim());
    else setDraft(object.label);
  };
  return (
    <li className={`object-row${object.visible ? '' : ' hidden-object'}`} data-testid="object-row">
      <input type="color" className="swatch" value={object.color} aria-label={`Colour of ${object.label}`} onChange={(e) => studio.setColor(imageId, object.id, e.target.value)} />
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
        <span className="muted small">
          {(object.confidence * 100).toFixed(0)}% · {vertices} vertices · {object.source}
          {object.receipt && (
            <>
              {' '}
              · <span title={`X-Service-Request-ID: ${object.receipt.requestId ?? 'n/a'}`}>{object.receipt.requestId?.slice(0, 12) ?? 'no request id'}</span>
              {object.receipt.refunded && ' · refunded'}
            </>
          )}
        </span>
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
