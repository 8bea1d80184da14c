import type { PolygonWithHoles } from '../../engine/types';
import { boundsOf } from '../../annotations/polygon';
import { polygonsToSvgPath } from '../geometry/svgPath';
import { imageElement } from '../images/imageLibrary';
import type { ImageEntry } from '../../annotations/annotation';

/** The candidate's box with a margin (a quarter of its size, at least 8 px), inside the image. */
export function thumbnailView(image: Pick<ImageEntry, 'width' | 'height'>, polygons: readonly PolygonWithHoles[]): [number, number, number, number] {
  const box = boundsOf(polygons);
  if (!box || box.width <= 0 || box.height <= 0) return [0, 0, image.width, image.height];
  const margin = Math.max(8, 0.25 * Math.max(box.width, box.height));
  const x0 = Math.max(0, box.left - margin);
  const y0 = Math.max(0, box.top - margin);
  const x1 = Math.min(image.width, box.left + box.width + margin);
  const y1 = Math.min(image.height, box.top + box.height + margin);
  return [x0, y0, x1 - x0, y1 - y0];
}

/** A small picture of one candidate over the photo, cropped to it, so choosing is looking, not reading scores. */
export function CandidateThumb({ image, polygons }: { image: ImageEntry; polygons: readonly PolygonWithHoles[] }) {
  const src = imageElement(image.id)?.src;
  const view = thumbnailView(image, polygons);
  return (
    <svg className="candidate-thumb" viewBox={view.join(' ')} preserveAspectRatio="xMidYMid meet" aria-hidden="true">
      {src && <image href={src} width={image.width} height={image.height} opacity={0.75} />}
      <path d={polygonsToSvgPath(polygons, 0)} fill="rgba(56,189,248,0.55)" fillRule="evenodd" stroke="#38bdf8" strokeWidth={Math.max(view[2], view[3]) / 60} />
    </svg>
  );
}
