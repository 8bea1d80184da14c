/**
 * `segment`: text-prompted segmentation of one image file, printing exactly the service's segment
 * response JSON on stdout (progress, interpretations and timings go to stderr).
 */
import { LIMITS, SegmentRequest, SegmentResponse } from '../contract';
import { loadNodeEngine } from '../engine/adapters/ortNode';
import { loadNodeDetectors } from '../engine/adapters/textNode';
import { TextPipeline, toSegmentResponse } from '../engine/text/pipeline';
import { DEFAULT_SEGMENTATION_OPTIONS } from '../engine/options';
import { readImageArgument, parseEngineFlags, parseFlags, UsageError } from './args';

export const SEGMENT_USAGE = `usage: segment --image FILE --prompt TEXT [--prompt TEXT]... [--tolerance PX] [--threads N] [--explain]

  --image FILE     PNG, JPEG, WebP, GIF, AVIF or TIFF
  --prompt TEXT    what to segment ("cat", "red car", "people on the left"). Repeatable, 1 to ${LIMITS.promptsMax}.
  --tolerance PX   polygon simplification tolerance in pixels (default ${DEFAULT_SEGMENTATION_OPTIONS.tolerance})
  --threads N      inference threads (default: all cores)
  --explain        print how each prompt was understood, and timings, to stderr
The local model knows the 80 COCO object classes (with synonyms, plurals and general words such
as "vehicle" or "animal"); a prompt naming anything else gets no predictions.`;

export interface SegmentCommandOptions {
  imagePath: string;
  prompts: string[];
  tolerance?: number;
  threads?: number;
  explain: boolean;
}

export function parseSegmentArgs(argv: readonly string[]): SegmentCommandOptions {
  const flags = parseFlags(argv, {
    image: { value: true },
    prompt: { value: true, repeatable: true },
    tolerance: { value: true },
    threads: { value: true },
    explain: { value: false },
  });
  const imagePath = flags.get('image')?.[0];
  if (!imagePath) throw new UsageError('--image FILE is required');
  const prompts = flags.get('prompt') ?? [];
  const checked = SegmentRequest.shape.prompts.safeParse(prompts);
  if (!checked.success) {
    throw new UsageError(
      prompts.length === 0 ? 'at least one --prompt TEXT is required' : `--prompt: ${checked.error.issues.map((i) => i.message).join('; ')}`,
    );
  }
  const { tolerance, threads } = parseEngineFlags(flags);
  return { imagePath, prompts, tolerance, threads, explain: flags.has('explain') };
}

/** Returns the process exit code. */
export async function segmentCommand(argv: readonly string[], io: { stdout: (s: string) => void; stderr: (s: string) => void }): Promise<number> {
  const options = parseSegmentArgs(argv);
  const image = await readImageArgument(options.imagePath);
  const engine = await loadNodeEngine({ threads: options.threads, embeddingCacheSize: 1 });
  // The same detectors and pipeline defaults as the API's /segment: the CLI is its reference.
  const detectors = await loadNodeDetectors({ threads: options.threads });
  try {
    const pipeline = new TextPipeline(engine, detectors);
    const { results, timings } = await pipeline.run(image, options.prompts);
    // The CLI is a reference for the API: never print anything the contract would reject.
    const response = SegmentResponse.parse(toSegmentResponse(results, { tolerance: options.tolerance }));
    io.stdout(JSON.stringify(response) + '\n');
    if (options.explain) {
      for (const r of results) {
        const i = r.interpretation;
        const understood = i.classes.length
          ? `${i.classes.length > 6 ? `${i.classes.length} classes` : i.classes.join('|')}` +
            `${i.colour ? `, colour ${i.colour}` : ''}${i.extreme ? `, ${i.extreme}` : ''}` +
            `${i.ignored.length ? `, ignored: ${i.ignored.join(' ')}` : ''}`
          : `unknown (${i.reason})`;
        io.stderr(`[segment] "${r.text}" → ${understood}: ${r.instances.length} found\n`);
      }
      io.stderr(
        `[segment] ${image.width}×${image.height} ` +
          Object.entries(timings)
            .map(([k, v]) => `${k}=${typeof v === 'number' ? v.toFixed(1) : v}`)
            .join(' ') +
          '\n',
      );
    }
    return 0;
  } finally {
    for (const detector of detectors) await detector.release();
    await engine.release();
  }
}
