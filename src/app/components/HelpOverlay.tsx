import { useRef } from 'react';
import { useFocusTrap } from '../a11y/useFocusTrap';
import { GESTURE_HELP } from '../commands/gestures';
import { commandHelpRows } from '../commands/registry';
import { useUi } from '../state/uiStore';

export function HelpOverlay() {
  const open = useUi((s) => s.helpOpen);
  return open ? <HelpDialog /> : null;
}

function HelpDialog() {
  const setOpen = useUi((s) => s.setHelpOpen);
  const dialog = useRef<HTMLDivElement>(null);
  useFocusTrap(dialog, () => setOpen(false));
  return (
    <div className="overlay" onClick={() => setOpen(false)}>
      <div ref={dialog} className="dialog" role="dialog" aria-modal="true" aria-labelledby="help-title" tabIndex={-1} onClick={(e) => e.stopPropagation()}>
        <div className="dialog-head">
          <h2 id="help-title">Keyboard shortcuts</h2>
          <button type="button" className="icon" aria-label="Close" onClick={() => setOpen(false)}>
            ✕
          </button>
        </div>
        <table className="shortcuts">
          <tbody>
            {[...commandHelpRows(), ...GESTURE_HELP].map((s) => (
              <tr key={`${s.keys}:${s.action}`}>
                <td>
                  <kbd>{s.keys}</kbd>
                </td>
                <td>{s.action}</td>
              </tr>
            ))}
          </tbody>
        </table>
        <p className="hint">Local mode runs the model in this browser. Remote mode calls the API and costs 1 credit per request.</p>
      </div>
    </div>
  );
}
