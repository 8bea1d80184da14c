/**
 * Per-feature mean and 1/sd over a set of examples: what the learned classes' logistic model and the
 * nearest-examples head (prototypeHead.ts) both standardise descriptors with. A feature that does not
 * vary gets scale 0, so it reads as 0 rather than dividing by almost nothing.
 */
export interface Standardisation {
  readonly mean: Float64Array<ArrayBuffer>;
  readonly scale: Float64Array<ArrayBuffer>;
}

export function standardisation(examples: readonly { readonly x: ArrayLike<number> }[], d: number): Standardisation {
  const n = Math.max(1, examples.length);
  const mean = new Float64Array(d);
  const sq = new Float64Array(d);
  for (const e of examples) for (let j = 0; j < d; j++) mean[j] += e.x[j];
  for (let j = 0; j < d; j++) mean[j] /= n;
  for (const e of examples) for (let j = 0; j < d; j++) sq[j] += (e.x[j] - mean[j]) ** 2;
  const scale = new Float64Array(d);
  for (let j = 0; j < d; j++) {
    const sd = Math.sqrt(sq[j] / n);
    scale[j] = sd > 1e-6 ? 1 / sd : 0;
  }
  return { mean, scale };
}
