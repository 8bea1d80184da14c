/**
 * Exact Euclidean distance transform (Felzenszwalb & Huttenlocher, "Distance Transforms of
 * Sampled Functions", 2012): the squared distance of every pixel to the nearest zero pixel,
 * computed as two passes of the exact 1-D lower-envelope-of-parabolas transform (columns, then
 * rows). Squared distances of pixel grids are integers, so results are exact and comparisons
 * between them (the click rule's max and ties) are exact too; sqrt is monotonic, so the arg-max
 * is the same as on true distances.
 */

/** Stands in for +infinity in the parabola arithmetic; far above any squared image distance. */
const FAR = 1e20;

/**
 * 1-D squared distance transform of a sampled function `f` (length n) into `d`.
 * `v` (parabola apexes) and `z` (envelope boundaries, length n + 1) are scratch buffers.
 */
function transform1d(f: Float64Array, n: number, d: Float64Array, v: Int32Array, z: Float64Array): void {
  let k = 0;
  v[0] = 0;
  z[0] = -Infinity;
  z[1] = Infinity;
  for (let q = 1; q < n; q++) {
    let s = (f[q] + q * q - (f[v[k]] + v[k] * v[k])) / (2 * q - 2 * v[k]);
    while (s <= z[k]) {
      k--;
      s = (f[q] + q * q - (f[v[k]] + v[k] * v[k])) / (2 * q - 2 * v[k]);
    }
    k++;
    v[k] = q;
    z[k] = s;
    z[k + 1] = Infinity;
  }
  k = 0;
  for (let q = 0; q < n; q++) {
    while (z[k + 1] < q) k++;
    const dq = q - v[k];
    d[q] = dq * dq + f[v[k]];
  }
}

/**
 * Squared Euclidean distance from every pixel to the nearest pixel where `mask` is 0
 * (0 on those pixels). If the mask has no zero pixel at all, values are >= 1e20.
 */
export function squaredDistanceTransform(mask: Uint8Array, width: number, height: number): Float64Array {
  const out = new Float64Array(width * height);
  const n = Math.max(width, height);
  const f = new Float64Array(n);
  const d = new Float64Array(n);
  const v = new Int32Array(n);
  const z = new Float64Array(n + 1);
  for (let x = 0; x < width; x++) {
    for (let y = 0; y < height; y++) f[y] = mask[y * width + x] ? FAR : 0;
    transform1d(f, height, d, v, z);
    for (let y = 0; y < height; y++) out[y * width + x] = d[y];
  }
  for (let y = 0; y < height; y++) {
    const row = y * width;
    for (let x = 0; x < width; x++) f[x] = out[row + x];
    transform1d(f, width, d, v, z);
    for (let x = 0; x < width; x++) out[row + x] = d[x];
  }
  return out;
}

/**
 * The protocol's distance map: the transform of `mask` padded by one pixel of zeros on every
 * side (so the image border counts as boundary), cropped back to width x height. Squared.
 */
export function paddedSquaredDistanceTransform(mask: Uint8Array, width: number, height: number): Float64Array {
  const paddedWidth = width + 2;
  const padded = new Uint8Array(paddedWidth * (height + 2));
  for (let y = 0; y < height; y++) {
    padded.set(mask.subarray(y * width, (y + 1) * width), (y + 1) * paddedWidth + 1);
  }
  const distances = squaredDistanceTransform(padded, paddedWidth, height + 2);
  const out = new Float64Array(width * height);
  for (let y = 0; y < height; y++) {
    const start = (y + 1) * paddedWidth + 1;
    out.set(distances.subarray(start, start + width), y * width);
  }
  return out;
}
