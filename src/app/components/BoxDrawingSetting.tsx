import { usePreferences } from '../state/preferences';

/** Center-out (the API's box) or corner to corner (as in CVAT and Label Studio); Shift flips it while dragging. */
export function BoxDrawingSetting() {
  const boxDrawing = usePreferences((s) => s.boxDrawing);
  const set = usePreferences((s) => s.set);
  return (
    <label className="box-drawing" title="Hold Shift while dragging to draw the other way">
      <input type="checkbox" checked={boxDrawing === 'corners'} onChange={(e) => set({ boxDrawing: e.target.checked ? 'corners' : 'center' })} />
      Corner to corner
    </label>
  );
}
