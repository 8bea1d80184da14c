/**
 * The clicks every bench run uses: a fixed grid over the image, so Node, our browser engine and the
 * peer see exactly the same prompts. Grid points land on objects and background alike, as real
 * first clicks do.
 */
export interface BenchClick {
  x: number;
  y: number;
}

export function gridClicks(width: number, height: number, count: number): BenchClick[] {
  const cols = Math.ceil(Math.sqrt((count * width) / height));
  const rows = Math.ceil(count / cols);
  const clicks: BenchClick[] = [];
  for (let r = 0; r < rows && clicks.length < count; r++) {
    for (let c = 0; c < cols && clicks.length < count; c++) {
      clicks.push({ x: Math.round(((c + 0.5) / cols) * width), y: Math.round(((r + 0.5) / rows) * height) });
    }
  }
  return clicks;
}
