import { useState } from 'react';
import { classActions } from '../state/editActions';
import type { ClassDef } from '../../annotations/annotation';
import { useStudio } from '../state/studioStore';

/** The session's class list: add, rename, recolour, reorder, delete (after a confirmation); 1–9 pick. */
export function ClassPanel() {
  const classes = useStudio((s) => s.history.present.classes);
  const activeClassId = useStudio((s) => s.history.present.activeClassId);
  const [confirming, setConfirming] = useState<number | null>(null);
  return (
    <section className="card classes" aria-label="Classes">
      <h2 className="section-title">
        Classes <span className="muted">{classes.length}</span>
      </h2>
      {classes.length === 0 && <p className="hint">Add classes; new objects take the current one. Keys 1–9 pick a class.</p>}
      <ul className="class-list">
        {classes.map((c, index) => (
          <ClassRow key={c.id} cls={c} index={index} count={classes.length} active={c.id === activeClassId} confirming={confirming === c.id} setConfirming={setConfirming} />
        ))}
      </ul>
      <button type="button" className="small" onClick={() => classActions.add()}>
        Add class
      </button>
    </section>
  );
}

function ClassRow({ cls, index, count, active, confirming, setConfirming }: { cls: ClassDef; index: number; count: number; active: boolean; confirming: boolean; setConfirming: (id: number | null) => void }) {
  const [draft, setDraft] = useState<string | null>(null);
  const commit = () => {
    if (draft !== null && draft.trim()) classActions.rename(cls.id, draft);
    setDraft(null);
  };
  return (
    <li className={`class-row${active ? ' active' : ''}`} data-testid="class-row" data-class-id={cls.id}>
      <input type="color" className="swatch" value={cls.color} aria-label={`Colour of class ${cls.name}`} onChange={(e) => classActions.recolor(cls.id, e.target.value)} />
      <button type="button" className="class-key" aria-pressed={active} aria-label={`Use class ${cls.name}${index < 9 ? ` (key ${index + 1})` : ''}`} onClick={() => classActions.pick(cls.id)}>
        {index < 9 ? index + 1 : '·'}
      </button>
      <input
        className="rename"
        aria-label={`Name of class ${cls.name}`}
        value={draft ?? cls.name}
        onChange={(e) => setDraft(e.target.value)}
        onBlur={commit}
        onKeyDown={(e) => {
          // Done typing: the keys go back to the studio (1–9, tools).
          if (e.key === 'Enter') e.currentTarget.blur();
          if (e.key === 'Escape') {
            setDraft(null);
            e.currentTarget.blur();
          }
        }}
      />
      <span className="muted small" title="Class id used by every export">
        id {cls.id}
      </span>
      <button type="button" className="icon" aria-label={`Move class ${cls.name} up`} disabled={index === 0} onClick={() => classActions.move(cls.id, -1)}>
        ↑
      </button>
      <button type="button" className="icon" aria-label={`Move class ${cls.name} down`} disabled={index === count - 1} onClick={() => classActions.move(cls.id, 1)}>
        ↓
      </button>
      {confirming ? (
        <span role="group" aria-label={`Confirm deleting class ${cls.name}`} className="confirm">
          <span className="small">Delete? Its objects become unlabelled.</span>
          <button
            type="button"
            className="small danger"
            onClick={() => {
              classActions.remove(cls.id);
              setConfirming(null);
            }}
          >
            Delete class
          </button>
          <button type="button" className="small" onClick={() => setConfirming(null)}>
            Cancel
          </button>
        </span>
      ) : (
        <button type="button" className="icon danger" aria-label={`Delete class ${cls.name}`} onClick={() => setConfirming(cls.id)}>
          ✕
        </button>
      )}
    </li>
  );
}
