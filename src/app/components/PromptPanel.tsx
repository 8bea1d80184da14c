import { useState } from 'react';
import { useAccount } from '../remote/useAccount';
import { rerunActivePrompt, runRemote } from '../inferenceController';
import { localTextSegmenter } from '../inference/localText';
import { engineSession } from '../studioServices';
import { addWithoutDuplicates, leftOutNote } from '../inference/objectDedupe';
import { hasUnknown, outcomeMessage, outcomeSummary, type PromptOutcome } from '../inference/textOutcomes';
import { remoteTextSegmenter } from '../inference/textSegmentation';
import { formatBytes, useEngineStatus } from '../state/engineStatus';
import { emptyPrompt, hasPrompt } from '../state/model';
import { studio, useStudio } from '../state/studioStore';
import { useUi } from '../state/uiStore';
import { useDetail } from '../state/detailStore';
import { useInferenceMode } from '../state/inferenceModeStore';
import { useRemoteSettings } from '../state/remoteSettingsStore';
import { useTool } from '../state/toolStore';
import { usePreferences } from '../state/preferences';
import { textToolInitial, textToolTransition, type TextToolState } from '../tools/textTool';
import { CandidateThumb } from './CandidateThumb';
import { KnownConcepts } from './KnownConcepts';
import { LabelAllControl } from './LabelAllControl';
import { LabelLikeMineControl } from './LabelLikeMineControl';
import { SegmentEverythingControl } from './SegmentEverythingControl';

/** "1 credit · balance 42": shown on every button that spends a credit. */
export function CostLabel() {
  const account = useAccount();
  const balance = account.data?.credits;
  return <span className="cost">1 credit · balance {balance ?? '?'}</span>;
}

export function PromptPanel() {
  const doc = useStudio((s) => s.history.present);
  const mode = useInferenceMode((s) => s.mode);
  const tool = useTool((s) => s.tool);
  const image = doc.images.find((i) => i.id === doc.activeImageId);
  if (!image) return null;
  // Keyed by image: a run's answer belongs to the image it ran on.
  if (tool === 'text') return <TextPromptPanel key={image.id} />;
  const prompt = doc.prompts[image.id] ?? emptyPrompt();
  const selected = prompt.candidates[prompt.selected];
  const positives = prompt.points.filter((p) => p.positive !== false).length;
  const negatives = prompt.points.length - positives;
  const busy = prompt.status === 'pending' || prompt.status === 'waiting';
  // A negative point says what to leave out, not what to select: nothing to segment yet, and the user is told so.
  const onlyExclusions = negatives > 0 && !hasPrompt(prompt);

  return (
    <section className="card prompt-panel" aria-label="Current selection">
      <h2 className="section-title">Selection</h2>
      {!hasPrompt(prompt) && prompt.points.length === 0 ? (
        <p className="hint">
          <SelectionHint tool={tool} />
        </p>
      ) : (
        <p className="prompt-summary">
          {positives > 0 && <span className="chip positive">{positives} positive</span>}
          {negatives > 0 && <span className="chip negative">{negatives} negative</span>}
          {prompt.box && <span className="chip box">box {Math.round(prompt.box.width)}×{Math.round(prompt.box.height)}</span>}
        </p>
      )}
      <div role="status" aria-live="polite" className={`prompt-status ${prompt.status}`}>
        {onlyExclusions && <span className="warning-text">A negative point only excludes. Add a positive point on the object (or draw a box) to select it.</span>}
        {prompt.status === 'pending' && (prompt.message ?? (mode === 'local' ? 'Segmenting…' : 'Sending to the API…'))}
        {prompt.status === 'waiting' && <span className="waiting">Waiting — {prompt.message}</span>}
        {prompt.status === 'error' && (
          <span className="error">
            {prompt.message}
            {prompt.message?.startsWith('Out of credits') && (
              <>
                {' '}
                <a href="#/credits" onClick={() => useUi.getState().setPage('credits')}>
                  Buy credits
                </a>
              </>
            )}
          </span>
        )}
        {prompt.status === 'done' && prompt.message && <span className="muted">{prompt.message}</span>}
        {prompt.status === 'done' && prompt.mirrorPassed && (
          <span className="muted" data-testid="mirror-passed" title="While you paused, the photo's mirror image was segmented with the same clicks and the two answers averaged: a steadier mask, computed when it cannot slow a click.">
            Mask checked against the mirror image while you paused.
          </span>
        )}
      </div>
      {mode === 'remote' && hasPrompt(prompt) && prompt.candidates.length === 0 && (
        <button type="button" className="primary wide" disabled={busy} onClick={() => void runRemote(image.id)}>
          Segment · <CostLabel />
        </button>
      )}
      {mode === 'local' && prompt.status === 'error' && (
        <button type="button" onClick={rerunActivePrompt}>
          Try again
        </button>
      )}
      {prompt.candidates.length > 0 && (
        <>
          <div className="candidates" role="radiogroup" aria-label="Mask candidates">
            {prompt.candidates.map((c, i) => (
              <button key={i} type="button" role="radio" aria-checked={i === prompt.selected} className={`candidate${i === prompt.selected ? ' active' : ''}`} onClick={() => studio.selectCandidate(image.id, i)} title={`Candidate ${i + 1}: predicted quality ${(c.score * 100).toFixed(0)}%`}>
                <CandidateThumb image={image} polygons={c.polygons} />
                <span>
                  {i + 1} · {(c.score * 100).toFixed(0)}%
                </span>
              </button>
            ))}
          </div>
          {selected?.receipt && (
            <p className="receipt" data-testid="receipt">
              Request <code>{selected.receipt.requestId ?? 'n/a'}</code>
              {selected.receipt.refunded ? <span className="chip refunded">refunded</span> : <span className="chip">charged 1 credit</span>}
            </p>
          )}
        </>
      )}
      <div className="row">
        <button type="button" className="primary" disabled={!selected} onClick={() => studio.acceptCandidate(image.id)} title="Add the selected mask as an object (Enter)">
          Accept object
        </button>
        <button type="button" disabled={prompt.points.length === 0 && !prompt.box} onClick={() => studio.clearPrompt(image.id)} title="Start over (Esc)">
          Clear
        </button>
      </div>
    </section>
  );
}

function SelectionHint({ tool }: { tool: string }) {
  const corners = usePreferences((s) => s.boxDrawing === 'corners');
  if (tool === 'box') return <>{corners ? 'Drag from one corner of the object to the opposite corner.' : 'Press at the center of an object and drag outwards.'}</>;
  return <>Click or tap an object to select it. Right-click or long-press excludes a part.</>;
}

type TextAnswer =
  | { readonly kind: 'local'; readonly summary: string; readonly outcomes: readonly PromptOutcome[] }
  | { readonly kind: 'message'; readonly text: string };

function TextPromptPanel() {
  const doc = useStudio((s) => s.history.present);
  const remote = useRemoteSettings((s) => s.remote);
  const mode = useInferenceMode((s) => s.mode);
  const tolerance = useDetail((s) => s.tolerance);
  const [state, setState] = useState<TextToolState>(textToolInitial);
  const [answer, setAnswer] = useState<TextAnswer | null>(null);
  const [conceptsOpen, setConceptsOpen] = useState(false);
  const image = doc.images.find((i) => i.id === doc.activeImageId);
  if (!image) return null;
  const local = mode === 'local';
  const segmenter = local ? localTextSegmenter(engineSession, tolerance) : remoteTextSegmenter(remote);

  const submit = () => {
    const { state: next, run } = textToolTransition(state, { type: 'submit' });
    setState(next);
    if (!run) return;
    setAnswer(null);
    segmenter
      .segment(image, run, (waiting) => setAnswer({ kind: 'message', text: `Waiting — ${waiting}` }))
      .then((result) => {
        const { reasons } = addWithoutDuplicates(image, result.objects);
        const again = leftOutNote(reasons);
        if (result.outcomes) setAnswer({ kind: 'local', summary: outcomeSummary(result.outcomes) + again, outcomes: result.outcomes });
        else setAnswer({ kind: 'message', text: `${result.objects.length} object${result.objects.length === 1 ? '' : 's'} found${again} · request ${result.requestId ?? 'n/a'}${result.refunded ? ' · refunded' : ''}` });
      })
      .catch((error: unknown) => setAnswer({ kind: 'message', text: error instanceof Error ? error.message : String(error) }))
      .finally(() => setState((s) => textToolTransition(s, { type: 'finished' }).state));
  };

  return (
    <form
      className="card prompt-panel"
      aria-label="Text prompt"
      onSubmit={(e) => {
        e.preventDefault();
        submit();
      }}
    >
      <h2 className="section-title">Text prompt</h2>
      <label className="field">
        What to find (comma-separated, up to 16)
        <textarea
          rows={2}
          value={state.phase === 'editing' ? state.draft : state.prompts.join(', ')}
          disabled={state.phase === 'running'}
          placeholder="cup, spoon"
          onChange={(e) => setState(textToolTransition(state, { type: 'input', draft: e.target.value }).state)}
        />
      </label>
      {state.phase === 'editing' && state.error && <p className="error">{state.error}</p>}
      <p className="hint small">
        {local
          ? 'Runs in this browser on the local model: free, no API key. It knows the 80 everyday object classes of COCO, faces, and footwear (high heels too) and desks.'
          : 'Runs on the server with your API key. Each request costs 1 credit; an empty result is refunded.'}
      </p>
      <button type="submit" className="primary wide" disabled={state.phase === 'running'}>
        {state.phase === 'running' ? 'Finding…' : 'Find objects'} · {local ? <span className="cost">free · local</span> : <CostLabel />}
      </button>
      {local && state.phase === 'running' && <DetectorProgress />}
      {local && (
        <LabelAllControl
          draft={state.phase === 'editing' ? state.draft : state.prompts.join(', ')}
          busy={state.phase === 'running'}
        />
      )}
      {local && <SegmentEverythingControl />}
      {local && <LabelLikeMineControl />}
      {answer && (
        <div role="status" className="receipt text-answer">
          {answer.kind === 'message' ? (
            answer.text
          ) : (
            <>
              <span>{answer.summary}</span>
              <ul className="prompt-outcomes" aria-label="Prompt results">
                {answer.outcomes.map((o, i) => (
                  <li key={i} className={`prompt-outcome ${o.kind}`}>
                    {outcomeMessage(o)}
                    {o.kind === 'unknown' && o.reason && <span className="muted"> ({o.reason})</span>}
                  </li>
                ))}
              </ul>
              {hasUnknown(answer.outcomes) && !conceptsOpen && (
                <button type="button" className="link-button" onClick={() => setConceptsOpen(true)}>
                  See the concepts it knows
                </button>
              )}
            </>
          )}
        </div>
      )}
      {local && <KnownConcepts open={conceptsOpen} onToggle={setConceptsOpen} />}
    </form>
  );
}

/** The detector is fetched on the first text prompt (8 MB once, then from the cache). */
function DetectorProgress() {
  const detector = useEngineStatus((s) => s.detector);
  if (!detector || detector.loadedBytes >= detector.totalBytes) return null;
  return (
    <div className="model-progress" role="group" aria-label="Detector download">
      <span>
        Downloading the object detector · {formatBytes(detector.loadedBytes)} of {formatBytes(detector.totalBytes)}
      </span>
      <progress max={detector.totalBytes || 1} value={detector.loadedBytes} aria-label="Detector download progress" />
    </div>
  );
}
