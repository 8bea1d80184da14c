import { useStudio } from '../state/studioStore';
import { useCamera } from '../state/cameraStore';
import { useDetail } from '../state/detailStore';
import { useTool } from '../state/toolStore';
import { TOOLS } from '../tools/registry';
import { DETAIL_MAX, detailFromTolerance, toleranceFromDetail } from '../geometry/detailLevel';
import { BoxDrawingSetting } from './BoxDrawingSetting';
import { ExportMenu } from './ExportMenu';
import { ImportMenu } from './ImportMenu';
import { BrushSizeSlider } from './BrushSizeSlider';
import { CommandButtons } from './CommandButtons';

export function Toolbar() {
  const tool = useTool((s) => s.tool);
  const setTool = useTool((s) => s.setTool);
  const tolerance = useDetail((s) => s.tolerance);
  const setTolerance = useDetail((s) => s.setTolerance);
  const camera = useCamera((s) => s.camera);
  // The command buttons' enabled rules and tooltips read the history and the camera.
  useStudio((s) => s.history);

  return (
    <div className="toolbar" role="toolbar" aria-label="Tools">
      <div className="tool-group">
        {TOOLS.map((t) => (
          <button key={t.id} type="button" className={`tool${tool === t.id ? ' active' : ''}`} aria-pressed={tool === t.id} aria-label={t.label} title={`${t.label} (${t.key}) — ${t.hint}`} onClick={() => setTool(t.id)}>
            <t.icon />
            <span className="tool-text" aria-hidden="true">
              {t.label}
            </span>
          </button>
        ))}
      </div>
      <div className="tool-group">
        <CommandButtons group="history" />
      </div>
      <div className="tool-group">
        <span className="zoom-readout" aria-label="Zoom level">
          {camera ? `${Math.round(camera.scale * 100)}%` : '—'}
        </span>
        <CommandButtons group="view" />
      </div>
      {(tool === 'brush' || tool === 'eraser') && <BrushSizeSlider />}
      {tool === 'box' && <BoxDrawingSetting />}
      <label className="detail-slider" title="Outline detail: fewer vertices to the left, closer to the mask to the right">
        Detail
        <input
          type="range"
          min={0}
          max={DETAIL_MAX}
          step={1}
          value={detailFromTolerance(tolerance)}
          aria-label="Polygon detail"
          aria-valuetext={`${detailFromTolerance(tolerance)} of ${DETAIL_MAX}`}
          onChange={(e) => setTolerance(toleranceFromDetail(Number(e.target.value)))}
        />
        <output className="detail-value">
          {detailFromTolerance(tolerance)}/{DETAIL_MAX}
        </output>
      </label>
      <div className="tool-group right">
        <ImportMenu />
        <ExportMenu />
        <CommandButtons group="help" />
      </div>
    </div>
  );
}
