/**
 * `pvs`: point/box-prompted segmentation of one image file, printing exactly the service's PVS
 * response JSON on stdout (nothing else goes to stdout; progress and timings go to stderr).
 */
import { Box, Point, PvsResponse } from '../contract';
import { loadNodeEngine } from '../engine/adapters/ortNode';
import { DEFAULT_SEGMENTATION_OPTIONS, runPvs, type PvsEngineRequest, type SegmentationOptions } from '../engine';
import { readImageArgument, parseEngineFlags, parseFlags, parseNumber, parseNumberList, UsageError } from './args';

export const PVS_USAGE = `usage: pvs --image FILE [--point X,Y[,neg]]... [--box CX,CY,W,H] [--image-id ID] [--no-multimask]
                  [--no-mirror-average] [--tolerance PX] [--threads N] [--timings]

  --image FILE       PNG, JPEG, WebP, GIF, AVIF or TIFF
  --point X,Y[,neg]  a click in image pixels; "neg" (or "-", "0", "negative") excludes the area. Repeatable.
  --box CX,CY,W,H    a box given by its CENTER, width and height, in image pixels
  --image-id ID      cache key echoed as "imageId" (default: a content hash of the pixels)
  --no-multimask     return only the single best mask
  --no-mirror-average  one look: skip the photo's mirror image (by default it is segmented too and
                     the answers averaged: fewer clicks needed, one more encoder and decoder run)
  --tolerance PX     polygon simplification tolerance in pixels (default ${DEFAULT_SEGMENTATION_OPTIONS.tolerance})
  --threads N        inference threads (default: all cores)
  --timings          print timings to stderr
At least one positive --point or a --box is required.`;

const NEGATIVE_WORDS = new Set(['neg', 'negative', '-', '0', 'false', 'n']);
const POSITIVE_WORDS = new Set(['pos', 'positive', '+', '1', 'true', 'p']);

export function parsePoint(text: string): Point {
  const parts = text.split(',');
  if (parts.length !== 2 && parts.length !== 3) throw new UsageError(`--point: expected X,Y or X,Y,neg, got "${text}"`);
  const x = parseNumber(parts[0], '--point x');
  const y = parseNumber(parts[1], '--point y');
  let positive = true;
  if (parts.length === 3) {
    const word = parts[2].trim().toLowerCase();
    if (NEGATIVE_WORDS.has(word)) positive = false;
    else if (!POSITIVE_WORDS.has(word)) throw new UsageError(`--point: third part must be "neg" or "pos", got "${parts[2]}"`);
  }
  const parsed = Point.safeParse({ x, y, positive });
  if (!parsed.success) throw new UsageError(`--point "${text}": coordinates must be ≥ 0`);
  return parsed.data;
}

export function parseBox(text: string): Box {
  const [x, y, width, height] = parseNumberList(text, '--box', 4);
  const parsed = Box.safeParse({ x, y, width, height });
  if (!parsed.success) throw new UsageError(`--box "${text}": center must be ≥ 0 and width/height > 0`);
  return parsed.data;
}

export interface PvsCommandOptions {
  imagePath: string;
  request: PvsEngineRequest;
  segmentation: Partial<SegmentationOptions>;
  threads?: number;
  timings: boolean;
}

export function parsePvsArgs(argv: readonly string[]): PvsCommandOptions {
  const flags = parseFlags(argv, {
    image: { value: true },
    point: { value: true, repeatable: true },
    box: { value: true },
    'image-id': { value: true },
    'no-multimask': { value: false },
    'no-mirror-average': { value: false },
    tolerance: { value: true },
    threads: { value: true },
    timings: { value: false },
  });
  const imagePath = flags.get('image')?.[0];
  if (!imagePath) throw new UsageError('--image FILE is required');
  const points = (flags.get('point') ?? []).map(parsePoint);
  const boxText = flags.get('box')?.[0];
  const box = boxText === undefined ? undefined : parseBox(boxText);
  if (!box && !points.some((p) => p.positive)) {
    throw new UsageError('a prompt is required: at least one positive --point X,Y or a --box CX,CY,W,H');
  }
  const imageId = flags.get('image-id')?.[0];
  if (imageId !== undefined && imageId.length === 0) throw new UsageError('--image-id must not be empty');
  const { tolerance, threads } = parseEngineFlags(flags);
  return {
    imagePath,
    request: {
      ...(points.length ? { points } : {}),
      ...(box ? { box } : {}),
      ...(imageId !== undefined ? { imageId } : {}),
    },
    segmentation: { multimask: !flags.has('no-multimask'), mirrorAverage: !flags.has('no-mirror-average'), tolerance },
    threads,
    timings: flags.has('timings'),
  };
}

/** Returns the process exit code. */
export async function pvsCommand(argv: readonly string[], io: { stdout: (s: string) => void; stderr: (s: string) => void }): Promise<number> {
  const options = parsePvsArgs(argv);
  const image = await readImageArgument(options.imagePath);
  const engine = await loadNodeEngine({ threads: options.threads, embeddingCacheSize: 1 });
  try {
    const { response, timings } = await runPvs(engine, image, options.request, options.segmentation);
    // The CLI is a reference for the API: never print anything the contract would reject.
    const checked = PvsResponse.parse(response);
    io.stdout(JSON.stringify(checked) + '\n');
    if (options.timings) {
      io.stderr(
        `[pvs] ${image.width}×${image.height} backend=${engine.backend.name} threads=${engine.backend.threads} ` +
          Object.entries(timings)
            .map(([k, v]) => `${k}=${typeof v === 'number' ? v.toFixed(1) : v}`)
            .join(' ') +
          '\n',
      );
    }
    return 0;
  } finally {
    await engine.release();
  }
}
