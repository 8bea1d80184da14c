/** Icons of the editing tools, drawn like the others in icons.tsx (24-unit box, currentColor). */
const props = { width: 18, height: 18, viewBox: '0 0 24 24', fill: 'none', stroke: 'currentColor', strokeWidth: 2, strokeLinecap: 'round' as const, strokeLinejoin: 'round' as const, 'aria-hidden': true };

export const SelectIcon = () => (
  <svg {...props}>
    <path d="M5 3l14 8-6 2-2 6z" />
  </svg>
);

export const BrushIcon = () => (
  <svg {...props}>
    <path d="M18 3l3 3-9 9-3-3z" />
    <path d="M9 15c-3 0-4 2-4 4 0 1-1 2-2 2 3 1 7 0 7-3z" />
  </svg>
);

export const EraserIcon = () => (
  <svg {...props}>
    <path d="M16 3l5 5-11 11H5l-3-3z" />
    <path d="M9 10l5 5M10 19h11" />
  </svg>
);
