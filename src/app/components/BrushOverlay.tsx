import { Circle, Group, Line } from 'react-konva';
import type { Vertex } from '../../engine/types';
import { brushStep, useEdit } from '../state/editStore';

/** The round brush under the cursor (its size shown to scale) and the stroke being painted. */
export function BrushOverlay({ erase, cursor, stroke, scale }: { erase: boolean; cursor: Vertex | null; stroke: readonly Vertex[] | null; scale: number }) {
  const size = useEdit((s) => s.brushSize);
  const color = erase ? '#ef4444' : '#22c55e';
  return (
    <Group listening={false} name="brush">
      {stroke && (
        <Line name="brush-stroke" points={stroke.flat()} stroke={color} opacity={0.5} strokeWidth={size} lineCap="round" lineJoin="round" />
      )}
      {cursor && <Circle name="brush-cursor" x={cursor[0]} y={cursor[1]} radius={size / 2} stroke={color} strokeWidth={1.5 / scale} dash={erase ? [4 / scale, 3 / scale] : undefined} />}
    </Group>
  );
}

/** The wheel while a mouse button is held changes the brush size; returns whether it did. */
export function brushWheel(event: WheelEvent): boolean {
  if (event.buttons === 0) return false;
  const edit = useEdit.getState();
  edit.setBrushSize(brushStep(edit.brushSize, event.deltaY < 0 ? 1 : -1));
  return true;
}
