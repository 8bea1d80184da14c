import { BRUSH_MAX, BRUSH_MIN, useEdit } from '../state/editStore';

export function BrushSizeSlider() {
  const size = useEdit((s) => s.brushSize);
  return (
    <label className="detail-slider" title="Brush diameter in image pixels ([ and ], or the wheel while painting)">
      Brush
      <input type="range" min={BRUSH_MIN} max={BRUSH_MAX} step={1} value={size} aria-label="Brush size" onChange={(e) => useEdit.getState().setBrushSize(Number(e.target.value))} />
      <span className="muted" data-testid="brush-size">
        {size} px
      </span>
    </label>
  );
}
