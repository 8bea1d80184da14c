import { useStudio, studio } from '../state/studioStore';
import { useUi } from '../state/uiStore';
import { useCamera } from '../state/cameraStore';
import { useDetail } from '../state/detailStore';
import { useTool } from '../state/toolStore';
import { TOOLS } from '../tools/registry';
import { fitToScreen, zoomAt } from '../geometry/camera';
import { DETAIL_MAX, detailFromTolerance, toleranceFromDetail } from '../geometry/detailLevel';
import { BoxDrawingSetting } from './BoxDrawingSetting';
import { ExportMenu } from './ExportMenu';
import { ImportMenu } from './ImportMenu';
import { BrushSizeSlider } from './BrushSizeSlider';
import { RedoIcon, UndoIcon } from '../icons/icons';

export function Toolbar() {
  const tool = useTool((s) => s.tool);
  const setTool = useTool((s) => s.setTool);
  const tolerance = useDetail((s) => s.tolerance);
  const setTolerance = useDetail((s) => s.setTolerance);
  const camera = useCamera((s) => s.camera);
  const setHelpOpen = useUi((s) => s.setHelpOpen);
  const history = useStudio((s) => s.history);
  const image = history.present.images.find((i) => i.id === history.present.activeImageId);
  const undoLabel = history.labels[history.labels.length - 1];
  const redoLabel = history.redoLabels[0];

  const zoom = (factor: number) => {
    const host = document.querySelector('.canvas-host');
    if (!camera || !host) return;
    useCamera.getState().setCamera(zoomAt(camera, [host.clientWidth / 2, host.clientHeight / 2], factor));
  };
  const fit = () => {
    const host = document.querySelector('.canvas-host');
    if (image && host) useCamera.getState().setCamera(fitToScreen(image.width, image.height, host.clientWidth, host.clientHeight));
  };

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
        <button type="button" aria-label="Undo" title={undoLabel ? `Undo ${undoLabel} (Ctrl+Z)` : 'Nothing to undo'} disabled={!history.past.length} onClick={studio.undo}>
          <UndoIcon /> <span aria-hidden="true">Undo</span>
        </button>
        <button type="button" aria-label="Redo" title={redoLabel ? `Redo ${redoLabel} (Ctrl+Shift+Z)` : 'Nothing to redo'} disabled={!history.future.length} onClick={studio.redo}>
          <RedoIcon /> <span aria-hidden="true">Redo</span>
        </button>
      </div>
      <div className="tool-group">
        <button type="button" aria-label="Zoom out" title="Zoom out (−)" disabled={!camera} onClick={() => zoom(1 / 1.25)}>
          −
        </button>
        <span className="zoom-readout" aria-label="Zoom level">
          {camera ? `${Math.round(camera.scale * 100)}%` : '—'}
        </span>
        <button type="button" aria-label="Zoom in" title="Zoom in (+)" disabled={!camera} onClick={() => zoom(1.25)}>
          +
        </button>
        <button type="button" title="Fit to screen (F)" disabled={!image} onClick={fit}>
          Fit
        </button>
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
        <button type="button" aria-label="Keyboard shortcuts" title="Keyboard shortcuts (?)" onClick={() => setHelpOpen(true)}>
          ?
        </button>
      </div>
    </div>
  );
}
