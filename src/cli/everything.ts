/**
 * `everything`: segment everything on one image file, printing exactly the service's everything
 * response JSON on stdout (progress and timings go to stderr).
 */
import { EverythingResponse } from '../contract';
import { loadNodeEngine } from '../engine/adapters/ortNode';
import { loadNodeDetectors } from '../engine/adapters/textNode';
import { runEverything } from '../engine/everything/response';
import { DEFAULT_EVERYTHING_RULE, EVERYTHING_RULES, type EverythingRule } from '../engine/everything/segmentEverything';
import { DEFAULT_SEGMENTATION_OPTIONS } from '../engine/options';
import { parseEngineFlags, parseFlags, readImageArgument, UsageError } from './args';

export const EVERYTHING_USAGE = `usage: everything --image FILE [--rule ${EVERYTHING_RULES.join('|')}] [--tolerance PX] [--threads N] [--progress]

  --image FILE     PNG, JPEG, WebP, GIF, AVIF or TIFF
  --rule R         objects (default): the detectors' boxes, then a coarse grid where nothing was found;
                   thorough (bulk work): objects, then again on 2×2 tiles each re-encoded at the
                   encoder's full resolution (4 more encoder runs: finds more small objects);
                   grid: SAM's automatic mask generator (32×32 points: about 100× the decoder runs)
  --tolerance PX   polygon simplification tolerance in pixels (default ${DEFAULT_SEGMENTATION_OPTIONS.tolerance})
  --threads N      inference threads (default: all cores)
  --progress       print progress and timings to stderr`;

export interface EverythingCommandOptions {
  imagePath: string;
  rule: EverythingRule;
  tolerance?: number;
  threads?: number;
  progress: boolean;
}

export function parseEverythingArgs(argv: readonly string[]): EverythingCommandOptions {
  const flags = parseFlags(argv, {
    image: { value: true },
    rule: { value: true },
    tolerance: { value: true },
    threads: { value: true },
    progress: { value: false },
  });
  const imagePath = flags.get('image')?.[0];
  if (!imagePath) throw new UsageError('--image FILE is required');
  const rule = (flags.get('rule')?.[0] ?? DEFAULT_EVERYTHING_RULE) as EverythingRule;
  if (!EVERYTHING_RULES.includes(rule)) throw new UsageError(`--rule must be one of ${EVERYTHING_RULES.join(', ')}`);
  const { tolerance, threads } = parseEngineFlags(flags);
  return { imagePath, rule, tolerance, threads, progress: flags.has('progress') };
}

/** Returns the process exit code. */
export async function everythingCommand(argv: readonly string[], io: { stdout: (s: string) => void; stderr: (s: string) => void }): Promise<number> {
  const options = parseEverythingArgs(argv);
  const image = await readImageArgument(options.imagePath);
  const engine = await loadNodeEngine({ threads: options.threads, embeddingCacheSize: 1 });
  const detectors = options.rule !== 'grid' ? await loadNodeDetectors({ threads: options.threads }) : [];
  try {
    let shown = -1;
    const { response: answer, result } = await runEverything(engine, image, {
      rule: options.rule,
      detectors,
      outline: { tolerance: options.tolerance },
      onProgress: (p) => {
        const step = Math.floor((10 * p.decoded) / Math.max(1, p.planned));
        if (!options.progress || step === shown) return;
        shown = step;
        io.stderr(`[everything] ${p.stage}: ${p.decoded}/${p.planned} decoder runs, ${p.proposals.length} proposals\n`);
      },
    });
    // The CLI is a reference for the API: never print anything the contract would reject.
    const response = EverythingResponse.parse(answer);
    io.stdout(JSON.stringify(response) + '\n');
    if (options.progress) {
      const t = result.timings;
      io.stderr(
        `[everything] ${image.width}×${image.height} ${result.rule}: ${response.predictions.length} predictions, ${result.decoderRuns} decoder runs; ` +
          `detect=${t.detectMs.toFixed(0)} decode=${t.decodeMs.toFixed(0)} total=${t.totalMs.toFixed(0)} ms\n`,
      );
    }
    return 0;
  } finally {
    for (const detector of detectors) await detector.release();
    await engine.release();
  }
}
