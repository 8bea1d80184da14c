import { CONCEPT_MODIFIERS, conceptEntries, generalWordEntries } from '../inference/knownConcepts';

const CONCEPTS = conceptEntries(3);
const GENERAL_WORDS = generalWordEntries();

/** A disclosure listing what the local detectors can find: each concept with a few synonyms and its detectors, general words and modifiers. */
export function KnownConcepts({ open, onToggle }: { open: boolean; onToggle: (open: boolean) => void }) {
  return (
    <details className="known-concepts" open={open} onToggle={(e) => onToggle((e.currentTarget as HTMLDetailsElement).open)}>
      <summary>Concepts the local model knows ({CONCEPTS.length})</summary>
      <p className="hint small">
        Two local detectors (CenterNet and COCO-SSD, pooled) know the 80 everyday object classes of COCO, a face detector (BlazeFace) knows faces, and an Open Images detector (MediaPipe Objectron's SSD) knows footwear, high heels and desks; all with their plurals and synonyms (“kittens”), and each concept shows which detectors find it.
        Relations such as “on the sofa” are ignored. Other concepts need a server with an open-vocabulary (SAM 3) upstream, in Remote mode.
      </p>
      <ul className="concept-list" aria-label="Known concepts">
        {CONCEPTS.map((c) => (
          <li key={c.name} title={c.sources?.length ? `found by ${c.sources.join(' and ')}` : undefined}>
            <strong>{c.name}</strong>
            {c.examples.length > 0 && <span className="muted"> · {c.examples.join(', ')}</span>}
            {c.sources && c.sources.length > 0 && <span className="muted small"> · {c.sources.join(' + ')}</span>}
          </li>
        ))}
      </ul>
      <p className="small">
        <strong>General words:</strong>{' '}
        <span className="muted">{GENERAL_WORDS.map((g) => g.name).join(', ')}</span>
      </p>
      <p className="small">
        <strong>Modifiers:</strong> <span className="muted">colours ({CONCEPT_MODIFIERS.colours.slice(0, 6).join(', ')}, …) and positions ({CONCEPT_MODIFIERS.positions.join(', ')}), e.g. “red car”, “leftmost person”.</span>
      </p>
    </details>
  );
}
