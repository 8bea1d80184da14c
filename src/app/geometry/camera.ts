import type { Vertex } from '../../engine/types';

/** Maps image pixels to screen pixels: screen = image * scale + offset. */
export interface Camera {
  readonly scale: number;
  readonly x: number;
  readonly y: number;
}

export const MIN_SCALE = 0.05;
export const MAX_SCALE = 40;

export function screenToImage(camera: Camera, screen: Vertex): Vertex {
  return [(screen[0] - camera.x) / camera.scale, (screen[1] - camera.y) / camera.scale];
}

export function imageToScreen(camera: Camera, image: Vertex): Vertex {
  return [image[0] * camera.scale + camera.x, image[1] * camera.scale + camera.y];
}

/** Zoom by `factor` keeping the image point under `anchor` (a screen point) fixed. */
export function zoomAt(camera: Camera, anchor: Vertex, factor: number): Camera {
  const scale = Math.min(MAX_SCALE, Math.max(MIN_SCALE, camera.scale * factor));
  const [ix, iy] = screenToImage(camera, anchor);
  return { scale, x: anchor[0] - ix * scale, y: anchor[1] - iy * scale };
}

export function panBy(camera: Camera, dx: number, dy: number): Camera {
  return { ...camera, x: camera.x + dx, y: camera.y + dy };
}

/** The whole image visible and centered, with a margin in screen pixels. */
export function fitToScreen(imageWidth: number, imageHeight: number, viewWidth: number, viewHeight: number, margin = 24): Camera {
  const availableW = Math.max(1, viewWidth - 2 * margin);
  const availableH = Math.max(1, viewHeight - 2 * margin);
  const scale = Math.min(availableW / imageWidth, availableH / imageHeight);
  return { scale, x: (viewWidth - imageWidth * scale) / 2, y: (viewHeight - imageHeight * scale) / 2 };
}

/** Wheel delta to a zoom factor; trackpads send many small deltas, mice a few large ones. */
export function wheelZoomFactor(deltaY: number): number {
  return Math.exp(-deltaY * 0.0015);
}

/**
 * A region of the image (an object's bounds) centred in view with room around it: it fills at most
 * `fill` of the view, never shown smaller than the whole image fitted, nor magnified beyond `maxScale`.
 */
export function fitRegion(
  region: { left: number; top: number; width: number; height: number },
  image: { width: number; height: number },
  view: { width: number; height: number },
  fill = 0.5,
  maxScale = 8,
): Camera {
  const whole = fitToScreen(image.width, image.height, view.width, view.height).scale;
  const wanted = Math.min((view.width * fill) / Math.max(1, region.width), (view.height * fill) / Math.max(1, region.height));
  const scale = Math.min(Math.max(whole, Math.min(maxScale, wanted)), MAX_SCALE);
  const cx = region.left + region.width / 2;
  const cy = region.top + region.height / 2;
  return { scale, x: view.width / 2 - cx * scale, y: view.height / 2 - cy * scale };
}
