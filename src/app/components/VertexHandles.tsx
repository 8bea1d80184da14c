import type Konva from 'konva';
import { Circle, Group } from 'react-konva';
import type { PolygonWithHoles, Vertex } from '../../engine/types';
import { moveVertex, type VertexRef } from '../geometry/vertexEdit';
import { edits } from '../state/editActions';
import { useEdit } from '../state/editStore';

/**
 * Outline handles of the selected object: drag a vertex to move it, click one to select it (Delete
 * removes it). Double-clicking an edge inserts a vertex (handled by the canvas). Each drag is one undo step.
 */
export function VertexHandles({ objectId, polygons, scale }: { objectId: string; polygons: readonly PolygonWithHoles[]; scale: number }) {
  const selectedVertex = useEdit((s) => s.selectedVertex);
  const handles: Array<{ ref: VertexRef; at: Vertex }> = [];
  polygons.forEach((polygon, pi) => [polygon.outer, ...polygon.holes].forEach((ring, ri) => ring.forEach((at, vi) => handles.push({ ref: { polygon: pi, ring: ri, vertex: vi }, at }))));
  const isSelected = (ref: VertexRef) => selectedVertex?.polygon === ref.polygon && selectedVertex.ring === ref.ring && selectedVertex.vertex === ref.vertex;
  const stop = (e: Konva.KonvaEventObject<MouseEvent>) => {
    e.cancelBubble = true;
  };
  return (
    <Group name="vertex-handles">
      {handles.map(({ ref, at }) => (
        <Circle
          key={`${ref.polygon}:${ref.ring}:${ref.vertex}`}
          name="vertex"
          x={at[0]}
          y={at[1]}
          radius={(isSelected(ref) ? 5.5 : 4) / scale}
          hitStrokeWidth={8 / scale}
          fill={isSelected(ref) ? '#facc15' : '#ffffff'}
          stroke="#0f172a"
          strokeWidth={1.2 / scale}
          draggable
          onMouseDown={(e) => {
            stop(e);
            useEdit.getState().selectVertex(ref);
          }}
          onMouseUp={stop}
          onDblClick={stop}
          onDragEnd={(e) => {
            const to: Vertex = [e.target.x(), e.target.y()];
            edits.setPolygons(objectId, moveVertex(polygons, ref, to), 'move vertex');
          }}
        />
      ))}
    </Group>
  );
}
