/**
 * `npm run eval -- --dataset coco --mode everything [--data DIR] [--out FILE] [--rules thorough,objects,grid] [--limit N] [--every N] [--threads N] [--encoder fp32|int8] [--decoder fp32|int8] [--embeddings DIR] [--settings JSON] [--decoder-workers N]`
 *
 * Segment everything on COCO photos: class-agnostic recall of the instances at mask IoU ≥ 0.5 with
 * at most 100 proposals per photo (AR@100; and for COCO's small / medium / large), and milliseconds
 * per photo in Node (the encoder run, the detectors and the decoder runs; the photo's encoder run is
 * measured once per photo and added to every rule, since each rule needs it; a rule's tile encoder
 * runs are its own). The rule bulk labelling uses is reported under "everything", the interactive
 * rule (the studio's button, the API's default) under "interactive", SAM's 32×32 grid rule under
 * "baseline".
 */
import { execFileSync } from 'node:child_process';
import { availableParallelism, loadavg } from 'node:os';
import { appendFile, mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { evalCommandLine } from './commandLine';
import { decodeImage } from '../../src/engine/adapters/nodeImage';
import { loadNodeEngine, type ModelPrecision } from '../../src/engine/adapters/ortNode';
import { loadNodeDetectors } from '../../src/engine/adapters/textNode';
import { defaultModelDir } from '../../src/engine/adapters/ortNode';
import { samFiles } from '../../src/engine/catalog';
import { diskEmbeddingStore } from '../eval/embeddingStore';
import {
  BULK_EVERYTHING_RULE,
  DEFAULT_EVERYTHING_RULE,
  EVERYTHING_RULES,
  EVERYTHING_SETTINGS,
  segmentEverything,
  DECODE_PARTS,
  type DecodePart,
  type EverythingRule,
  type EverythingSettings,
} from '../../src/engine/everything/segmentEverything';
import { emptyPartCpu, meterParts, type PartCpu } from './partCpu';
import { matchImage, toRegion, type GroundTruthInstance } from './metrics';
import { rasterizeSegmentation, type CocoSegmentation } from './rasterize';
import { addImageRecall, areaRange, emptyRecallCounts, nearnessOf, recall, type RecallCounts } from './recall';
import { tallyMisses, type MissTally } from './missDiagnosis';
import { proposalDumpLine } from './proposalDump';

export interface CocoInstancesFile {
  images: { id: number; file_name: string; width: number; height: number }[];
  annotations: { image_id: number; category_id: number; iscrowd: number; segmentation: CocoSegmentation; bbox: number[]; area: number }[];
  categories: { id: number; name: string; supercategory: string }[];
}

const USAGE = `usage: npm run eval -- --dataset coco --mode everything [options]
  --data DIR       COCO folder with images/ and instances.json (default ../shared/eval/coco-tiny)
  --out FILE       results JSON (default bench/results/evalEverything.json)
  --rules LIST     rules to run, comma-separated (default thorough,objects: the bulk and the interactive
                   rule; add grid for SAM's automatic mask generator, ~1,000 decoder runs a photo)
  --limit N        first N images only (sorted by file name)
  --every N        every Nth image (a spread-out subset)
  --threads N      onnxruntime intra-op threads (default: all cores)
  --encoder P      fp32 (default) or int8 (the server's default encoder)
  --decoder P      fp32 (default, also the server's) or int8
  --embeddings DIR keep encoder outputs (photos and tiles) on disk in DIR and reuse them; the times
                   then leave out every encoder run found there (development runs only)
  --settings JSON  EverythingSettings fields laid over every rule's (trying a variant)
  --decoder-workers N  the decoder on N worker threads of one intra-op thread each, asked ahead (default 1:
                   the decoder on the main thread with --threads; CPU per part then overlaps and is not split)
  --dump FILE      every proposal of every photo (features and IoU with the instances near it), a JSON
                   line a photo and rule, to replay other rankings without the models`;

const commandLine = evalCommandLine('eval coco everything', USAGE, {
  rules: { type: 'string' },
  every: { type: 'string' },
  encoder: { type: 'string' },
  decoder: { type: 'string' },
  embeddings: { type: 'string' },
  settings: { type: 'string' },
  'decoder-workers': { type: 'string' },
  dump: { type: 'string' },
});
const fail: (message: string) => never = commandLine.fail;

/** The photos of a COCO folder in file-name order, `--every` and `--limit` applied. */
export function selectImages<T extends { file_name: string }>(images: readonly T[], every?: number, limit?: number): T[] {
  let out = [...images].sort((a, b) => a.file_name.localeCompare(b.file_name));
  if (every) out = out.filter((_, k) => k % every === 0);
  if (limit) out = out.slice(0, limit);
  return out;
}

/** Each image's ground truth as regions with COCO's `area`. */
export function groundTruthOf(instances: CocoInstancesFile, info: CocoInstancesFile['images'][number]) {
  return instances.annotations
    .filter((a) => a.image_id === info.id)
    .map((a) => ({
      region: toRegion(rasterizeSegmentation(a.segmentation, info.width, info.height)),
      crowd: a.iscrowd === 1,
      area: a.area,
      bbox: a.bbox,
      categoryId: a.category_id,
    }));
}

interface RuleTotals {
  counts: RecallCounts;
  ms: number;
  /** Process CPU time (every thread): wall time on this shared machine depends on the others' load. */
  cpuMs: number;
  detectMs: number;
  decodeMs: number;
  tileEncodeMs: number;
  tilesEncoded: number;
  decoderRuns: number;
  /** Process CPU time inside the detectors, the decoder runs and the tiles' encoder runs. */
  partCpu: PartCpu;
  detectorPasses: number;
  decodes: Partial<Record<DecodePart, { runs: number; kept: number }>>;
  proposals: number;
  /** Proposals and the instances they matched, by what found them (photo or tile, box or grid point). */
  foundBy: Record<string, { proposals: number; matched: number }>;
  /** Instances by area range and by how near the nearest shown proposal came (what a miss lacks). */
  nearness: Record<string, Record<string, number>>;
  /** Instances missed, by area range: why (ranked out, poor mask, nothing near), how many encoder patches, how crowded. */
  misses: MissTally;
}

/** Which prompts' proposals matched an instance (all areas, IoU ≥ 0.5, the matching of the recall). */
function tallyFoundBy(
  foundBy: RuleTotals['foundBy'],
  gts: readonly (GroundTruthInstance & { area: number })[],
  proposals: readonly { source: string; tile?: unknown }[],
  scored: readonly { region: ReturnType<typeof toRegion>; score: number }[],
): void {
  const match = matchImage(gts, scored, [0.5]);
  // matchImage ranks a stable copy best first and keeps the top 100: the same order here.
  const order = [...scored.keys()].sort((a, b) => scored[b].score - scored[a].score).slice(0, match.matched[0].length);
  order.forEach((index, rank) => {
    const key = `${proposals[index].tile ? 'tile' : 'photo'} ${proposals[index].source}`;
    foundBy[key] ??= { proposals: 0, matched: 0 };
    foundBy[key].proposals++;
    if (match.matched[0][rank]) foundBy[key].matched++;
  });
}

export async function runEverythingEval(argv: readonly string[]): Promise<void> {
  const values = commandLine.parse(argv);
  if (!values) return;
  const dataDir = resolve(values.data ?? '../shared/eval/coco-tiny');
  const out = resolve(values.out ?? 'bench/results/evalEverything.json');
  const rules = (values.rules ?? `${BULK_EVERYTHING_RULE},${DEFAULT_EVERYTHING_RULE}`).split(',') as EverythingRule[];
  let overrides: Partial<EverythingSettings> = {};
  try {
    overrides = values.settings ? (JSON.parse(values.settings) as Partial<EverythingSettings>) : {};
  } catch (error) {
    fail(`--settings: ${(error as Error).message}`);
  }
  for (const r of rules) if (!EVERYTHING_RULES.includes(r)) fail(`unknown rule "${r}" (${EVERYTHING_RULES.join(', ')})`);
  const threads = values.threads === undefined ? undefined : Number(values.threads);
  const instances = await commandLine.readInstances<CocoInstancesFile>(dataDir);
  const images = selectImages(instances.images, values.every ? Number(values.every) : undefined, values.limit ? Number(values.limit) : undefined);

  const precision = (name: 'encoder' | 'decoder'): ModelPrecision => {
    const value = values[name] ?? 'fp32';
    if (value !== 'fp32' && value !== 'int8') fail(`--${name} must be fp32 or int8`);
    return value;
  };
  const models = { encoderPrecision: precision('encoder'), decoderPrecision: precision('decoder') };
  const embeddingStore = values.embeddings ? diskEmbeddingStore(join(defaultModelDir(), samFiles({ encoderPrecision: models.encoderPrecision }).encoder), resolve(values.embeddings)) : undefined;
  const decoderWorkers = values['decoder-workers'] === undefined ? 1 : Number(values['decoder-workers']);
  if (!Number.isInteger(decoderWorkers) || decoderWorkers < 1) fail('--decoder-workers must be a positive integer');
  const engine = await loadNodeEngine({ threads, embeddingCacheSize: 1, embeddingStore, decoderWorkers, ...models });
  const detectors = await loadNodeDetectors({ threads });
  const totals = new Map<EverythingRule, RuleTotals>(
    rules.map((r) => [r, { counts: emptyRecallCounts(), ms: 0, cpuMs: 0, detectMs: 0, decodeMs: 0, tileEncodeMs: 0, tilesEncoded: 0, decoderRuns: 0, partCpu: emptyPartCpu(), detectorPasses: 0, decodes: {}, proposals: 0, foundBy: {}, nearness: {}, misses: {} }]),
  );
  const dump = values.dump ? resolve(values.dump) : undefined;
  if (dump) await writeFile(dump, '');
  let encoderMs = 0;
  let encoderCpuMs = 0;
  const started = Date.now();
  process.stderr.write(`eval coco everything: ${images.length} images from ${dataDir}; rules ${rules.join(', ')}; ${engine.backend.name}, encoder ${models.encoderPrecision}, decoder ${models.decoderPrecision}${decoderWorkers > 1 ? ` on ${decoderWorkers} workers` : ''}\n`);

  for (const [i, info] of images.entries()) {
    const image = await decodeImage(await readFile(join(dataDir, 'images', info.file_name)));
    const gts = groundTruthOf(instances, info);
    const t0 = performance.now();
    const c0 = process.cpuUsage();
    const { imageKey } = await engine.embed(image, info.file_name);
    const embedMs = performance.now() - t0;
    const embedCpuMs = cpuMsSince(c0);
    encoderMs += embedMs;
    encoderCpuMs += embedCpuMs;
    const line: string[] = [];
    for (const rule of rules) {
      const t1 = performance.now();
      const c1 = process.cpuUsage();
      const total = totals.get(rule)!;
      const metered = meterParts(engine, detectors, total.partCpu);
      // Every proposal the rule makes, so that a miss ranked past the shown ones is told apart; the shown ones are the rule's cut.
      const maxShown = overrides.maxProposals ?? EVERYTHING_SETTINGS[rule].maxProposals;
      const result = await segmentEverything(metered.engine, imageKey, { ...overrides, maxProposals: Infinity, rule, image, detectors: metered.detectors });
      // Timed before the eval's own work on the answer (regions, the miss diagnosis).
      const ms = performance.now() - t1 + embedMs;
      const ruleCpuMs = cpuMsSince(c1);
      const made = result.proposals.map((p) => ({ region: toRegion(p.mask), score: p.rankScore }));
      tallyMisses(total.misses, gts, made, info.width, info.height);
      if (dump) await appendFile(dump, `${proposalDumpLine(info.file_name, rule, gts, result.proposals, made.map((m) => m.region))}\n`);
      const proposals = result.proposals.slice(0, maxShown);
      total.detectorPasses += result.work.detectorPasses;
      for (const [part, { runs, kept }] of Object.entries(result.work.decodes) as [DecodePart, { runs: number; kept: number }][]) {
        const sum = (total.decodes[part] ??= { runs: 0, kept: 0 });
        sum.runs += runs;
        sum.kept += kept;
      }
      total.cpuMs += ruleCpuMs + embedCpuMs;
      total.detectMs += result.timings.detectMs;
      total.decodeMs += result.timings.decodeMs;
      total.tileEncodeMs += result.timings.tileEncodeMs;
      total.tilesEncoded += result.tilesEncoded;
      const before = total.counts.all.matched;
      const scored = made.slice(0, maxShown);
      addImageRecall(total.counts, gts, scored);
      tallyFoundBy(total.foundBy, gts, proposals, scored);
      const sizes = gts.filter((g) => !g.crowd).map((g) => areaRange(g.area));
      nearnessOf(gts, scored).forEach((band, k) => {
        total.nearness[sizes[k]] ??= {};
        total.nearness[sizes[k]][band] = (total.nearness[sizes[k]][band] ?? 0) + 1;
      });
      total.ms += ms;
      total.decoderRuns += result.decoderRuns;
      total.proposals += proposals.length;
      line.push(
        `${rule}: ${total.counts.all.matched - before} found, ${proposals.length} proposals, ${result.decoderRuns} decodes, ` +
          `${(ms / 1000).toFixed(1)} s (detect ${(result.timings.detectMs / 1000).toFixed(1)}, decode ${(result.timings.decodeMs / 1000).toFixed(1)}, tiles encoded ${(result.timings.tileEncodeMs / 1000).toFixed(1)})`,
      );
    }
    engine.forget();
    const positives = gts.filter((g) => !g.crowd).length;
    process.stderr.write(`[${i + 1}/${images.length}] ${info.file_name} ${positives} instances; ${line.join('; ')} (${((Date.now() - started) / 1000).toFixed(0)} s)\n`);
  }
  await engine.release();
  for (const d of detectors) await d.release();

  const summaryOf = (rule: EverythingRule) => {
    const t = totals.get(rule)!;
    return {
      rule: ruleName(rule, overrides),
      ar100: recall(t.counts.all),
      arSmall: recall(t.counts.small),
      arMedium: recall(t.counts.medium),
      arLarge: recall(t.counts.large),
      msPerPhotoNode: t.ms / images.length,
      cpuMsPerPhotoNode: t.cpuMs / images.length,
      detectMsPerPhoto: t.detectMs / images.length,
      decodeMsPerPhoto: t.decodeMs / images.length,
      tileEncodeMsPerPhoto: t.tileEncodeMs / images.length,
      tilesEncodedPerPhoto: t.tilesEncoded / images.length,
      decoderRunsPerPhoto: t.decoderRuns / images.length,
      detectorPassesPerPhoto: t.detectorPasses / images.length,
      decodesPerPhoto: Object.fromEntries(Object.entries(t.decodes).map(([part, d]) => [part, { runs: d.runs / images.length, kept: d.kept / images.length }])),
      cpuMsPerPhoto: {
        detectors: t.partCpu.detectMs / images.length,
        decoder: t.partCpu.decodeMs / images.length,
        tileEncoder: t.partCpu.tileEncodeMs / images.length,
        rest: (t.cpuMs - encoderCpuMs - t.partCpu.detectMs - t.partCpu.decodeMs - t.partCpu.tileEncodeMs) / images.length,
      },
      proposalsPerPhoto: t.proposals / images.length,
      foundBy: t.foundBy,
      nearness: t.nearness,
      misses: t.misses,
      instances: { all: t.counts.all.instances, small: t.counts.small.instances, medium: t.counts.medium.instances, large: t.counts.large.instances },
    };
  };
  const result = {
    dataset: dataDir,
    images: images.length,
    commit: gitCommit(),
    backend: engine.backend,
    models: { ...models, decoderWorkers },
    encoderMsPerPhoto: encoderMs / images.length,
    encoderCpuMsPerPhoto: encoderCpuMs / images.length,
    embeddingsCached: Boolean(embeddingStore),
    overrides,
    ...(rules.includes(BULK_EVERYTHING_RULE) ? { everything: summaryOf(BULK_EVERYTHING_RULE) } : {}),
    ...(rules.includes(DEFAULT_EVERYTHING_RULE) ? { interactive: summaryOf(DEFAULT_EVERYTHING_RULE) } : {}),
    ...(rules.includes('grid') ? { baseline: summaryOf('grid') } : {}),
    rules: Object.fromEntries(rules.map((r) => [r, { ...summaryOf(r), settings: { ...EVERYTHING_SETTINGS[r], ...overrides } }])),
  };
  const pct = (v: number | undefined) => (v === undefined ? '–' : (v * 100).toFixed(1));
  const table = [
    `COCO segment everything, ${images.length} images, ${totals.get(rules[0])!.counts.all.instances} instances (class-agnostic, mask IoU ≥ 0.5, ≤ 100 proposals)`,
    '',
    '| rule | AR@100 | small | medium | large | ms/photo (Node) | CPU ms/photo | decoder runs/photo | tiles encoded/photo | proposals/photo |',
    '|---|---|---|---|---|---|---|---|---|---|',
    ...rules.map((r) => {
      const s = summaryOf(r);
      return `| ${s.rule} | ${pct(s.ar100)} | ${pct(s.arSmall)} | ${pct(s.arMedium)} | ${pct(s.arLarge)} | ${s.msPerPhotoNode.toFixed(0)} | ${s.cpuMsPerPhotoNode.toFixed(0)} | ${s.decoderRunsPerPhoto.toFixed(0)} | ${s.tilesEncodedPerPhoto.toFixed(1)} | ${s.proposalsPerPhoto.toFixed(0)} |`;
    }),
    '',
    `encoder: ${(encoderMs / images.length).toFixed(0)} ms (CPU ${(encoderCpuMs / images.length).toFixed(0)} ms) per photo (included in every rule's time)`,
    '',
    '| rule | wall ms/photo: photo encoder | tile encoder (runs) | detectors | decoder (runs) | the rest: merging, upsampling, masks |',
    '|---|---|---|---|---|---|',
    ...rules.map((r) => {
      const s = summaryOf(r);
      const rest = s.msPerPhotoNode - encoderMs / images.length - s.tileEncodeMsPerPhoto - s.detectMsPerPhoto - s.decodeMsPerPhoto;
      return `| ${r} | ${(encoderMs / images.length).toFixed(0)} | ${s.tileEncodeMsPerPhoto.toFixed(0)} (${s.tilesEncodedPerPhoto.toFixed(1)}) | ${s.detectMsPerPhoto.toFixed(0)} | ${s.decodeMsPerPhoto.toFixed(0)} (${s.decoderRunsPerPhoto.toFixed(1)}) | ${rest.toFixed(0)} |`;
    }),
    '',
    '| rule | CPU ms/photo: photo encoder | tile encoder (ms a run) | detectors (passes; ms a pass) | decoder (ms a run) | the rest |',
    '|---|---|---|---|---|---|',
    ...rules.map((r) => {
      const s = summaryOf(r);
      const per = (ms: number, runs: number) => (runs > 0 ? (ms / runs).toFixed(0) : '–');
      return `| ${r} | ${(encoderCpuMs / images.length).toFixed(0)} | ${s.cpuMsPerPhoto.tileEncoder.toFixed(0)} (${per(s.cpuMsPerPhoto.tileEncoder, s.tilesEncodedPerPhoto)}) | ${s.cpuMsPerPhoto.detectors.toFixed(0)} (${s.detectorPassesPerPhoto.toFixed(2)}; ${per(s.cpuMsPerPhoto.detectors, s.detectorPassesPerPhoto)}) | ${s.cpuMsPerPhoto.decoder.toFixed(0)} (${per(s.cpuMsPerPhoto.decoder, s.decoderRunsPerPhoto)}) | ${s.cpuMsPerPhoto.rest.toFixed(0)} |`;
    }),
    '',
    '| rule | decoder runs a photo (proposals they added): ' + DECODE_PARTS.join(' | ') + ' |',
    `|---|${DECODE_PARTS.map(() => '---|').join('')}`,
    ...rules.map((r) => {
      const s = summaryOf(r);
      return `| ${r} | ${DECODE_PARTS.map((part) => { const d = s.decodesPerPhoto[part]; return d ? `${d.runs.toFixed(1)} (${d.kept.toFixed(1)})` : '0'; }).join(' | ')} |`;
    }),
    '',
    ...rules.flatMap((r) =>
      (['small', 'medium', 'large'] as const).map((range) => {
        const m = totals.get(r)!.misses[range];
        const list = (counts: Record<string, number> | undefined) => Object.entries(counts ?? {}).sort(([a], [b]) => a.localeCompare(b)).map(([k, n]) => `${k} ${n}`).join(', ');
        return `${r}, ${range} instances missed: ${list(m?.reason) || 'none'}; ${list(m?.patches)}; ${list(m?.crowding)}`;
      }),
    ),
    `load average at the end: ${loadavg().map((l) => l.toFixed(1)).join(', ')} on ${availableParallelism()} cores (other processes slow every wall time above)`,
    ...(embeddingStore ? ['encoder outputs reused from --embeddings: the times leave out the encoder runs found there'] : []),
  ].join('\n');
  process.stdout.write(`${table}\n`);
  await mkdir(dirname(out), { recursive: true });
  await writeFile(out, `${JSON.stringify(result, null, 2)}\n`);
  process.stderr.write(`eval coco everything: wrote ${out} (${((Date.now() - started) / 1000).toFixed(0)} s)\n`);
}

function cpuMsSince(start: NodeJS.CpuUsage): number {
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000;
}

function ruleName(rule: EverythingRule, overrides: Partial<EverythingSettings>): string {
  const s = { ...EVERYTHING_SETTINGS[rule], ...overrides };
  if (rule === 'grid') return `SAM automatic mask generator: ${s.gridSides[0]}×${s.gridSides[0]} grid, pred IoU ≥ ${s.predIouThreshold}, stability ≥ ${s.stabilityThreshold}, box NMS ${s.boxNmsIou}`;
  const boxes = `detector boxes (≤ ${s.maxBoxes}, score ≥ ${s.minDetectorScore}${s.minSmallBoxScore < s.minDetectorScore ? `, small ones ≥ ${s.minSmallBoxScore}` : ''})`;
  const objects = `object-aware: ${boxes}${s.gridSides.length ? ` then a ${s.gridSides.join('→')} grid over what is not yet covered` : ', no grid'}`;
  return s.tilesPerSide > 1
    ? s.encodeTiles
      ? `${objects}; then ${s.tilesPerSide}×${s.tilesPerSide} tiles (overlap ${s.tileOverlap}) re-encoded where the detectors box something new, their boxes${s.tileGridSides.length ? ` and a ${s.tileGridSides.join('→')} grid` : ''} decoded on each`
      : `${objects}; then ${s.tilesPerSide}×${s.tilesPerSide} tiles (overlap ${s.tileOverlap}) searched by the detectors, their new boxes decoded on the photo's embedding (no tile encoded)`
    : objects;
}

export function gitCommit(): string | undefined {
  try {
    return execFileSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();
  } catch {
    return undefined;
  }
}
