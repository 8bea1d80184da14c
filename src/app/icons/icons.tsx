/** Inline SVG icons: no icon font, no external asset (the page is cross-origin isolated). */
const common = { width: 16, height: 16, viewBox: '0 0 16 16', fill: 'none', stroke: 'currentColor', strokeWidth: 1.6, strokeLinecap: 'round' as const, 'aria-hidden': true };

export const PositiveIcon = () => (
  <svg {...common}>
    <circle cx="8" cy="8" r="6.2" />
    <path d="M8 5v6M5 8h6" />
  </svg>
);

export const NegativeIcon = () => (
  <svg {...common}>
    <circle cx="8" cy="8" r="6.2" />
    <path d="M5 8h6" />
  </svg>
);

/** A rectangle with its center marked: the box is drawn from the center out. */
export const BoxIcon = () => (
  <svg {...common}>
    <rect x="1.8" y="3" width="12.4" height="10" rx="1" strokeDasharray="2.2 1.6" />
    <path d="M8 6.4v3.2M6.4 8h3.2" />
  </svg>
);

/** A solid rectangle with corner handles: a box that is itself the annotation. */
export const BoxAnnotationIcon = () => (
  <svg {...common}>
    <rect x="2.5" y="3.5" width="11" height="9" />
    <path d="M1.5 2.5h2v2h-2zM12.5 2.5h2v2h-2zM1.5 11.5h2v2h-2zM12.5 11.5h2v2h-2z" />
  </svg>
);

export const TextIcon = () => (
  <svg {...common}>
    <path d="M3 4V3h10v1M8 3v10M6 13h4" />
  </svg>
);

export const UndoIcon = () => (
  <svg {...common}>
    <path d="M5.5 3.5 2.5 6.5l3 3" />
    <path d="M2.8 6.5H10a3.5 3.5 0 0 1 0 7H7" />
  </svg>
);

export const RedoIcon = () => (
  <svg {...common}>
    <path d="m10.5 3.5 3 3-3 3" />
    <path d="M13.2 6.5H6a3.5 3.5 0 0 0 0 7h3" />
  </svg>
);

export const EyeIcon = ({ open }: { open: boolean }) => (
  <svg {...common}>
    <path d="M1.5 8S4 3.5 8 3.5 14.5 8 14.5 8 12 12.5 8 12.5 1.5 8 1.5 8Z" />
    {open ? <circle cx="8" cy="8" r="2" /> : <path d="M2.5 13.5 13.5 2.5" />}
  </svg>
);

export const TrashIcon = () => (
  <svg {...common}>
    <path d="M2.5 4.5h11M6 4.5V3h4v1.5M4 4.5l.7 9h6.6l.7-9" />
  </svg>
);
