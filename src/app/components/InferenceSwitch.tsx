import { useUi, type InferenceMode } from '../state/uiStore';

/** The user's choice: the model in this browser, or our metered API. */
export function InferenceSwitch() {
  const mode = useUi((s) => s.mode);
  const setMode = useUi((s) => s.setMode);
  const option = (value: InferenceMode, label: string, hint: string) => (
    <label className={`segmented-option${mode === value ? ' active' : ''}`} title={hint}>
      <input type="radio" name="inference-mode" value={value} checked={mode === value} onChange={() => setMode(value)} />
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
