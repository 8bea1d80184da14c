import { describe, expect, it } from 'vitest';
import { fitRegion, fitToScreen, imageToScreen, panBy, screenToImage, wheelZoomFactor, zoomAt } from './camera';

describe('camera', () => {
  it('round-trips between image and screen coordinates', () => {
    const camera = { scale: 2.5, x: 40, y: -10 };
    const image: [number, number] = [123.5, 77];
    const [sx, sy] = imageToScreen(camera, image);
    const back = screenToImage(camera, [sx, sy]);
    expect(back[0]).toBeCloseTo(image[0]);
    expect(back[1]).toBeCloseTo(image[1]);
  });

  it('keeps the point under the cursor fixed while zooming', () => {
    const camera = { scale: 1, x: 10, y: 20 };
    const anchor: [number, number] = [300, 200];
    const before = screenToImage(camera, anchor);
    const zoomed = zoomAt(camera, anchor, 3);
    const after = screenToImage(zoomed, anchor);
    expect(zoomed.scale).toBe(3);
    expect(after[0]).toBeCloseTo(before[0]);
    expect(after[1]).toBeCloseTo(before[1]);
  });

  it('fits and centers a wide image', () => {
    const camera = fitToScreen(600, 400, 848, 648, 24);
    expect(camera.scale).toBeCloseTo(800 / 600);
    expect(camera.x).toBeCloseTo(24);
    expect(camera.y).toBeCloseTo((648 - 400 * camera.scale) / 2);
  });

  it('pans and zooms in for negative wheel deltas', () => {
    expect(panBy({ scale: 1, x: 0, y: 0 }, 5, -3)).toEqual({ scale: 1, x: 5, y: -3 });
    expect(wheelZoomFactor(-100)).toBeGreaterThan(1);
    expect(wheelZoomFactor(100)).toBeLessThan(1);
  });
});

describe('fitRegion', () => {
  const image = { width: 1000, height: 500 };
  const view = { width: 800, height: 600 };
  it('centres a small object, magnified to half the view at most', () => {
    const camera = fitRegion({ left: 100, top: 100, width: 50, height: 20 }, image, view);
    expect(camera.scale).toBe(8);
    expect(imageToScreen(camera, [125, 110])).toEqual([400, 300]);
    expect(fitRegion({ left: 100, top: 100, width: 100, height: 60 }, image, view).scale).toBe(4);
  });
  it('never shows a large object smaller than the whole image fitted', () => {
    const camera = fitRegion({ left: 0, top: 0, width: 1000, height: 500 }, image, view);
    expect(camera.scale).toBeCloseTo(fitToScreen(1000, 500, 800, 600).scale);
  });
});
