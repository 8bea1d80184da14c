import type Konva from 'konva';
import { useState } from 'react';
import { Circle, Group, Rect } from 'react-konva';
import type { Vertex } from '../../engine/types';
import type { BoxGeometry } from '../../annotations/annotation';
import { BOX_HANDLES, handlePoint, resizeBox, type BoxHandle } from '../geometry/boxHandles';
import { edits } from '../state/editActions';

/**
 * Handles of the selected box: drag a corner or an edge to resize it. The box follows the drag on
 * screen; the release is one undo step.
 */
export function BoxHandles({ objectId, box, scale, clamp }: { objectId: string; box: BoxGeometry; scale: number; clamp: (p: Vertex) => Vertex }) {
  const [preview, setPreview] = useState<BoxGeometry | null>(null);
  const shown = preview ?? box;
  const stop = (e: Konva.KonvaEventObject<MouseEvent>) => {
    e.cancelBubble = true;
  };
  const dragged = (handle: BoxHandle, e: Konva.KonvaEventObject<DragEvent>) => {
    const next = resizeBox(box, handle, clamp([e.target.x(), e.target.y()]));
    // An edge handle stays on its edge's midpoint, whichever way the pointer strays.
    e.target.position({ x: handlePoint(next, handle)[0], y: handlePoint(next, handle)[1] });
    return next;
  };
  return (
    <Group name="box-handles">
      <Rect name="box-outline" x={shown[0]} y={shown[1]} width={shown[2]} height={shown[3]} stroke="#ffffff" strokeWidth={1.5 / scale} dash={[5 / scale, 3 / scale]} listening={false} />
      {BOX_HANDLES.map((handle) => {
        const [x, y] = handlePoint(shown, handle);
        return (
          <Circle
            key={handle}
            name={`box-handle box-handle-${handle}`}
            x={x}
            y={y}
            radius={5 / scale}
            hitStrokeWidth={8 / scale}
            fill="#ffffff"
            stroke="#0f172a"
            strokeWidth={1.2 / scale}
            draggable
            onMouseDown={stop}
            onMouseUp={stop}
            onDragMove={(e) => setPreview(dragged(handle, e))}
            onDragEnd={(e) => {
              const next = dragged(handle, e);
              setPreview(null);
              edits.setBox(objectId, next);
            }}
          />
        );
      })}
    </Group>
  );
}
