import { MOUSE_LEFT, MOUSE_RIGHT, type ToolMachine } from './types';

/** Stateless apart from hover: a click adds a point; right-click or Alt+click adds the opposite kind. */
export interface PointToolState {
  readonly hovering: boolean;
}

export function createPointTool(positive: boolean): ToolMachine<PointToolState> {
  return {
    id: positive ? 'positive' : 'negative',
    initial: { hovering: false },
    transition(state, event) {
      switch (event.type) {
        case 'down': {
          if (event.button !== MOUSE_LEFT && event.button !== MOUSE_RIGHT) return { state, outputs: [] };
          const flipped = event.button === MOUSE_RIGHT || event.altKey === true;
          const isPositive = flipped ? !positive : positive;
          return { state, outputs: [{ type: 'addPoint', point: { x: event.at[0], y: event.at[1], positive: isPositive } }] };
        }
        case 'move':
          return { state: { hovering: true }, outputs: [{ type: 'hover', at: event.at }] };
        case 'leave':
        case 'cancel':
          return { state: { hovering: false }, outputs: [{ type: 'hover', at: null }] };
        default:
          return { state, outputs: [] };
      }
    },
  };
}

export const positivePointTool = createPointTool(true);
export const negativePointTool = createPointTool(false);
