/**
 * A contact sheet of the worst objects: one row per object with the photo, the ground truth and our
 * mask after a given number of clicks (with the clicks drawn), cropped around the object so small
 * objects are visible. Pixels are composed here; sharp only encodes the PNG and draws the labels.
 */
import sharp from 'sharp';
import type { RgbaImage } from '../../src/engine/types';
import type { Click, GroundTruth } from './clicker';

export interface SheetEntry {
  readonly name: string;
  readonly image: RgbaImage;
  readonly truth: GroundTruth;
  readonly mask: Uint8Array;
  readonly clicks: readonly Click[];
  readonly iou: number;
}

export interface SheetSection {
  readonly title: string;
  readonly entries: readonly SheetEntry[];
}

const TILE = 180;
const LABEL = 18;
const GAP = 4;

interface Box {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
}

/** Box of object ∪ prediction ∪ clicks, grown by a quarter of its size (context), square-ish. */
export function focusBox(entry: SheetEntry): Box {
  const { width, height } = entry.truth;
  let x0 = width;
  let y0 = height;
  let x1 = -1;
  let y1 = -1;
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = y * width + x;
      if (entry.truth.labels[i] !== 1 && !entry.mask[i]) continue;
      if (x < x0) x0 = x;
      if (x > x1) x1 = x;
      if (y < y0) y0 = y;
      if (y > y1) y1 = y;
    }
  }
  for (const c of entry.clicks) {
    x0 = Math.min(x0, c.x);
    x1 = Math.max(x1, c.x);
    y0 = Math.min(y0, c.y);
    y1 = Math.max(y1, c.y);
  }
  if (x1 < 0) return { x0: 0, y0: 0, x1: width - 1, y1: height - 1 };
  const side = Math.max(x1 - x0, y1 - y0, 32) * 1.25;
  const cx = (x0 + x1) / 2;
  const cy = (y0 + y1) / 2;
  const clamp = (v: number, max: number) => Math.max(0, Math.min(max, Math.round(v)));
  return {
    x0: clamp(cx - side / 2, width - 1),
    y0: clamp(cy - side / 2, height - 1),
    x1: clamp(cx + side / 2, width - 1),
    y1: clamp(cy + side / 2, height - 1),
  };
}

type Painter = (x: number, y: number, i: number, rgb: [number, number, number]) => [number, number, number];

function tile(entry: SheetEntry, box: Box, paint: Painter, out: Uint8Array, outWidth: number, left: number, top: number): number {
  const w = box.x1 - box.x0 + 1;
  const h = box.y1 - box.y0 + 1;
  const scale = TILE / Math.max(w, h);
  const { width } = entry.image;
  for (let ty = 0; ty < TILE; ty++) {
    for (let tx = 0; tx < TILE; tx++) {
      const x = Math.floor(box.x0 + (tx + 0.5) / scale);
      const y = Math.floor(box.y0 + (ty + 0.5) / scale);
      const o = ((top + ty) * outWidth + left + tx) * 4;
      if (x > box.x1 || y > box.y1) continue;
      const i = y * width + x;
      const d = entry.image.data;
      const rgb = paint(x, y, i, [d[i * 4], d[i * 4 + 1], d[i * 4 + 2]]);
      out[o] = rgb[0];
      out[o + 1] = rgb[1];
      out[o + 2] = rgb[2];
      out[o + 3] = 255;
    }
  }
  return scale;
}

const tint = (rgb: [number, number, number], color: [number, number, number], alpha: number): [number, number, number] => [
  rgb[0] * (1 - alpha) + color[0] * alpha,
  rgb[1] * (1 - alpha) + color[1] * alpha,
  rgb[2] * (1 - alpha) + color[2] * alpha,
];

function dot(out: Uint8Array, outWidth: number, cx: number, cy: number, color: [number, number, number]): void {
  for (let dy = -4; dy <= 4; dy++) {
    for (let dx = -4; dx <= 4; dx++) {
      const r2 = dx * dx + dy * dy;
      if (r2 > 16) continue;
      const o = ((Math.round(cy) + dy) * outWidth + Math.round(cx) + dx) * 4;
      if (o < 0 || o + 3 >= out.length) continue;
      const c = r2 > 9 ? [255, 255, 255] : color;
      out[o] = c[0];
      out[o + 1] = c[1];
      out[o + 2] = c[2];
      out[o + 3] = 255;
    }
  }
}

const escapeXml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/**
 * Rows: [photo | ground truth (green) | our mask: true positive green, false positive red, missed
 * blue, clicks as dots (green positive, red negative)]. Sections side by side, one column each.
 */
export async function writeContactSheet(path: string, sections: readonly SheetSection[]): Promise<void> {
  const rows = Math.max(...sections.map((s) => s.entries.length), 1);
  const sectionWidth = 3 * TILE + 2 * GAP;
  const width = sections.length * sectionWidth + (sections.length - 1) * 3 * GAP;
  const rowHeight = LABEL + TILE + GAP;
  const height = LABEL + rows * rowHeight;
  const out = new Uint8Array(width * height * 4).fill(255);
  const labels: string[] = [];
  sections.forEach((section, s) => {
    const left = s * (sectionWidth + 3 * GAP);
    labels.push(`<text x="${left + 2}" y="${LABEL - 5}" font-size="14" font-weight="bold">${escapeXml(section.title)}</text>`);
    section.entries.forEach((entry, r) => {
      const top = LABEL + r * rowHeight + LABEL;
      const box = focusBox(entry);
      labels.push(
        `<text x="${left + 2}" y="${top - 5}" font-size="12">${escapeXml(`${entry.name}  IoU ${(entry.iou * 100).toFixed(1)}%  ${entry.clicks.length} clicks`)}</text>`,
      );
      tile(entry, box, (_x, _y, _i, rgb) => rgb, out, width, left, top);
      tile(entry, box, (_x, _y, i, rgb) => (entry.truth.labels[i] === 1 ? tint(rgb, [0, 200, 0], 0.55) : entry.truth.labels[i] === -1 ? tint(rgb, [255, 255, 0], 0.4) : tint(rgb, [0, 0, 0], 0.35)), out, width, left + TILE + GAP, top);
      const maskLeft = left + 2 * (TILE + GAP);
      const scale = tile(
        entry,
        box,
        (_x, _y, i, rgb) => {
          const truth = entry.truth.labels[i];
          const predicted = entry.mask[i] === 1;
          if (truth === -1) return tint(rgb, [0, 0, 0], 0.35);
          if (predicted && truth === 1) return tint(rgb, [0, 200, 0], 0.5);
          if (predicted) return tint(rgb, [255, 0, 0], 0.6);
          if (truth === 1) return tint(rgb, [0, 80, 255], 0.6);
          return tint(rgb, [0, 0, 0], 0.35);
        },
        out,
        width,
        maskLeft,
        top,
      );
      for (const c of entry.clicks) {
        const tx = (c.x + 0.5 - box.x0) * scale;
        const ty = (c.y + 0.5 - box.y0) * scale;
        if (tx < 0 || ty < 0 || tx >= TILE || ty >= TILE) continue;
        dot(out, width, maskLeft + tx, top + ty, c.positive ? [0, 220, 0] : [230, 0, 0]);
      }
    });
  });
  const svg = Buffer.from(`<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" font-family="sans-serif">${labels.join('')}</svg>`);
  await sharp(Buffer.from(out.buffer), { raw: { width, height, channels: 4 } })
    .composite([{ input: svg, top: 0, left: 0 }])
    .png({ compressionLevel: 9, palette: true, colours: 128 })
    .toFile(path);
}
