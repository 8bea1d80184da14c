import { rerunActivePrompt } from '../inference/controller';
import { promptOf } from '../state/documentOps';
import { currentDocument } from '../state/studioStore';
import { useInferenceMode, type InferenceMode } from '../state/inferenceModeStore';

/** Switching to local answers a prompt that was waiting for a paid Segment press, for free. */
function switchTo(mode: InferenceMode, setMode: (mode: InferenceMode) => void) {
  setMode(mode);
  const doc = currentDocument();
  if (mode === 'local' && doc.activeImageId && promptOf(doc, doc.activeImageId).candidates.length === 0) rerunActivePrompt();
}

/** The user's choice: the model in this browser, or our metered API. */
export function InferenceSwitch() {
  const mode = useInferenceMode((s) => s.mode);
  const setMode = useInferenceMode((s) => s.setMode);
  const option = (value: InferenceMode, label: string, hint: string) => (
    <label className={`segmented-option${mode === value ? ' active' : ''}`} title={hint}>
      <input type="radio" name="inference-mode" value={value} checked={mode === value} onChange={() => switchTo(value, setMode)} />
      {label}
    </label>
  );
  return (
    <div className="segmented" role="radiogroup" aria-label="Inference">
      <span className="segmented-caption" aria-hidden="true">
        Inference
      </span>
      {option('local', 'Local', 'Runs the model in this browser: free, private')}
      {option('remote', 'Remote', 'Calls the Maskwright API: 1 credit per request')}
    </div>
  );
}
