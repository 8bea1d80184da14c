import type { PolygonWithHoles } from '../../engine/types';
import { polygonsToSvgPath } from '../geometry/svgPath';
import { imageElement } from '../images/imageLibrary';
import type { ImageEntry } from '../state/model';

/** A small picture of one candidate over the photo, so choosing is looking, not reading scores. */
export function CandidateThumb({ image, polygons }: { image: ImageEntry; polygons: readonly PolygonWithHoles[] }) {
  const src = imageElement(image.id)?.src;
  return (
    <svg className="candidate-thumb" viewBox={`0 0 ${image.width} ${image.height}`} preserveAspectRatio="xMidYMid meet" aria-hidden="true">
      {src && <image href={src} width={image.width} height={image.height} opacity={0.75} />}
      <path d={polygonsToSvgPath(polygons, 0)} fill="rgba(56,189,248,0.55)" fillRule="evenodd" stroke="#38bdf8" strokeWidth={Math.max(image.width, image.height) / 120} />
    </svg>
  );
}
