import type Konva from 'konva';
import { Shape } from 'react-konva';
import type { PolygonWithHoles } from '../../engine/types';

/** All rings of an object as one path, filled even-odd so holes are see-through at any zoom. */
export function PolygonShape(props: {
  polygons: readonly PolygonWithHoles[];
  fill: string;
  stroke: string;
  scale: number;
  strokePx?: number;
  dash?: number[];
  name?: string;
}) {
  const { polygons, scale, strokePx = 2 } = props;
  return (
    <Shape
      name={props.name}
      listening={false}
      perfectDrawEnabled={false}
      fill={props.fill}
      fillRule="evenodd"
      stroke={props.stroke}
      strokeWidth={strokePx / scale}
      dash={props.dash?.map((d) => d / scale)}
      lineJoin="round"
      sceneFunc={(context: Konva.Context, shape: Konva.Shape) => {
        context.beginPath();
        for (const polygon of polygons) {
          for (const ring of [polygon.outer, ...polygon.holes]) {
            if (ring.length < 3) continue;
            context.moveTo(ring[0][0], ring[0][1]);
            for (let i = 1; i < ring.length; i++) context.lineTo(ring[i][0], ring[i][1]);
            context.closePath();
          }
        }
        context.fillStrokeShape(shape);
      }}
    />
  );
}
