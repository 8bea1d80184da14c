import { rerunActivePrompt } from '../inferenceController';
import { SERVER_START_LABEL } from '../inference/serverEmbedding';
import { promptOf } from '../state/documentOps';
import { useInferenceMode } from '../state/inferenceModeStore';
import { usePreferences } from '../state/preferences';
import { currentDocument } from '../state/studioStore';

/** Local and Server start both decode clicks in this browser; they differ in who makes the embedding. */
type InferenceChoice = 'local' | 'server-start' | 'remote';

/** Switching to a local choice answers a prompt that was waiting for a paid Segment press, for free. */
function switchTo(choice: InferenceChoice) {
  if (choice !== 'remote') usePreferences.getState().set({ embeddingSource: choice === 'server-start' ? 'server' : 'device' });
  useInferenceMode.getState().setMode(choice === 'remote' ? 'remote' : 'local');
  const doc = currentDocument();
  if (choice !== 'remote' && doc.activeImageId && promptOf(doc, doc.activeImageId).candidates.length === 0) rerunActivePrompt();
}

/** The user's choice: the model in this browser, the server's encoder + this browser's decoder, or our metered API. */
export function InferenceSwitch() {
  const mode = useInferenceMode((s) => s.mode);
  const source = usePreferences((s) => s.embeddingSource);
  const chosen: InferenceChoice = mode === 'remote' ? 'remote' : source === 'server' ? 'server-start' : 'local';
  const option = (value: InferenceChoice, label: string, hint: string) => (
    <label className={`segmented-option${chosen === value ? ' active' : ''}`} title={hint}>
      <input type="radio" name="inference-mode" value={value} checked={chosen === value} onChange={() => switchTo(value)} />
      {label}
    </label>
  );
  return (
    <div className="segmented" role="radiogroup" aria-label="Inference">
      <span className="segmented-caption" aria-hidden="true">
        Inference
      </span>
      {option('local', 'Local', 'Runs the model in this browser: free, private, works offline')}
      {option('server-start', 'Server start', `${SERVER_START_LABEL}: the server analyses each photo once, every click runs in this browser`)}
      {option('remote', 'Remote', 'Calls the Maskwright API: 1 credit per request')}
    </div>
  );
}
