/**
 * `npx tsx bench/eval/curve.ts --out docs/iou-per-click.png RESULTS.json [...]`: mean IoU against
 * click number, one panel per results file (dataset), one line per rule in it. Drawn as SVG,
 * rasterized by sharp.
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import sharp from 'sharp';

interface RuleCurve {
  readonly name: string;
  readonly meanIouPerClick: readonly number[];
}

const COLORS = ['#888888', '#d62728', '#1f77b4', '#2ca02c', '#9467bd'];
const W = 420;
const H = 300;
const M = { left: 48, right: 12, top: 28, bottom: 36 };

/** One panel: axes from the lowest mean IoU (rounded down to 5 %) to 100 %, click 1..N. */
export function panelSvg(title: string, curves: readonly RuleCurve[], offsetX: number): string {
  const n = Math.max(...curves.map((c) => c.meanIouPerClick.length));
  const low = Math.floor(Math.min(...curves.flatMap((c) => c.meanIouPerClick)) * 20) / 20;
  const x = (k: number) => offsetX + M.left + ((k - 1) / Math.max(1, n - 1)) * (W - M.left - M.right);
  const y = (v: number) => M.top + ((1 - v) / (1 - low)) * (H - M.top - M.bottom);
  const parts = [`<text x="${offsetX + W / 2}" y="18" text-anchor="middle" font-size="14" font-weight="bold">${title}</text>`];
  for (let v = low; v <= 1.0001; v += 0.05) {
    parts.push(`<line x1="${x(1)}" x2="${x(n)}" y1="${y(v)}" y2="${y(v)}" stroke="#ddd"/>`);
    parts.push(`<text x="${x(1) - 6}" y="${y(v) + 4}" text-anchor="end" font-size="11">${Math.round(v * 100)}%</text>`);
  }
  for (const k of [1, 2, 3, 4, 5, 10, 15, 20].filter((c) => c <= n)) {
    parts.push(`<text x="${x(k)}" y="${H - M.bottom + 16}" text-anchor="middle" font-size="11">${k}</text>`);
  }
  parts.push(`<text x="${offsetX + W / 2}" y="${H - 4}" text-anchor="middle" font-size="11">clicks</text>`);
  curves.forEach((curve, i) => {
    const color = COLORS[i % COLORS.length];
    const points = curve.meanIouPerClick.map((v, k) => `${x(k + 1).toFixed(1)},${y(v).toFixed(1)}`).join(' ');
    parts.push(`<polyline points="${points}" fill="none" stroke="${color}" stroke-width="2"/>`);
    const last = curve.meanIouPerClick[curve.meanIouPerClick.length - 1];
    parts.push(
      `<text x="${x(n) - 4}" y="${y(low) - 8 - 14 * (curves.length - 1 - i)}" text-anchor="end" font-size="12" fill="${color}">${curve.name}: ${(last * 100).toFixed(1)}% at ${n}</text>`,
    );
  });
  return parts.join('');
}

async function main(): Promise<void> {
  const { values, positionals } = parseArgs({ options: { out: { type: 'string' } }, allowPositionals: true });
  if (!values.out || positionals.length === 0) throw new Error('usage: curve.ts --out FILE.png RESULTS.json [...]');
  const panels = positionals.map((file) => {
    const results = JSON.parse(readFileSync(file, 'utf8')) as { dataset: string; rules: (RuleCurve & { images: unknown[] })[] };
    const images = results.rules[0].images.length;
    return { title: `${results.dataset} (${images} objects): mean IoU per click`, curves: results.rules };
  });
  const width = W * panels.length;
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${H}" font-family="sans-serif"><rect width="100%" height="100%" fill="white"/>${panels
    .map((p, i) => panelSvg(p.title, p.curves, i * W))
    .join('')}</svg>`;
  await sharp(Buffer.from(svg)).png().toFile(values.out);
  process.stderr.write(`curve: written to ${values.out}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`curve: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
