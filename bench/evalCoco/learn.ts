/**
 * `npm run eval -- --dataset coco --mode learn --data DIR [--seed-images 10] [--limit N] [--out FILE]`
 *
 * A labeller that learns (issue 37), played by a perfect reviewer: the first `--seed-images` photos
 * are labelled by hand from the ground truth; then on every photo in file-name order the tool
 * proposes (segment everything, each proposal classified by the learned classes), the reviewer
 * accepts what matches an unmatched instance of the proposed class, re-classes what matches one of
 * another class, rejects the rest and adds each missed instance by hand, and the tool learns from
 * the photo before the next. See learnReplay.ts for the rules and what is reported.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { evalCommandLine } from './commandLine';
import { loadNodeEngine, defaultModelDir } from '../../src/engine/adapters/ortNode';
import { samFiles } from '../../src/engine/catalog';
import { loadNodeDetectors } from '../../src/engine/adapters/textNode';
import type { SegmentationEngine } from '../../src/engine/engine';
import { DEFAULT_DESCRIPTOR_KINDS, DESCRIPTOR_KINDS, type DescriptorKind } from '../../src/engine/learn/descriptors';
import type { ConceptDetector } from '../../src/engine/text/detector';
import { diskEmbeddingStore } from '../eval/embeddingStore';
import { gitCommit, selectImages, type CocoInstancesFile } from './everything';
import { DEFAULT_DISPLAY_CALIBRATION, DEFAULT_SHOWN_CALIBRATION, SHOWN_CALIBRATION_METHODS, type ShownCalibrationMethod } from '../../src/engine/learn/shownCalibration';
import { cachedPhoto, cacheEntryProblem, LEARN_CACHE_VERSION, type CachedPhoto } from './learnCache';
import { BULK_EVERYTHING_RULE, DEFAULT_EVERYTHING_RULE, EVERYTHING_RULES, type EverythingRule } from '../../src/engine/everything/segmentEverything';
import { withFitFromDir } from './detectionsCache';
import { lossSplit, lossSplitTable, type ScoredPhotoRecord } from './lossSplit';
import { withFramedFromDir } from './framedCache';
import { withoutRing, withRingFromEmbeddings } from './ringFromEmbeddings';
import { DEFAULT_LEARNED_HEAD, LEARNED_HEADS, type LearnedHead } from '../../src/engine/learn/learnedClasses';
import { namingProbe } from './namingProbe';
import { classSetSummary, classSetTable } from './classSetSummary';
import { exampleProposals } from './exampleProposals';
import { hideFromDetectors, unknownClassesOf } from './unknownClasses';
import { replaySession, type ClassRow, type LearnSummary, type ReplayOptions } from './learnReplay';

const USAGE = `usage: npm run eval -- --dataset coco --mode learn --data DIR [options]
  --data DIR             COCO-style folder with images/ and instances.json (default ../shared/eval/coco-tiny);
                         ground truth with empty segmentation is matched by box IoU (raccoon)
  --seed-images N        photos labelled by hand before the tool proposes (default 10)
  --order-seed N         the photos in a shuffled order drawn from N (default 0: file-name order): equivalent
                         sessions, to tell a change from the spread between them
  --limit N              first N photos only (file-name order)
  --out FILE             results JSON (default bench/results/evalLearn-<data folder>.json)
  --descriptors LIST     descriptor kinds the classifier reads, joined by + (default sam+detectors+appearance)
  --ablation             also replay every combination of descriptor kinds, reported under "ablation"
  --show P               the lowest probability shown to the reviewer (default 0.3)
  --l2 L                 the classifier's L2 penalty (default LearnedClasses')
  --step-work W          arithmetic one learning step may spend (default LearnedClasses')
  --no-suppress          propose parts and duplicates of a more probable same-class proposal too
  --no-rank-overlaps     the probability shown is the classifier's, not the overlap ranker's (learned from earlier photos' outcomes)
  --skip-partial         proposals partly over an instance teach nothing (default: background)
  --no-detector-prior    the learned classes alone, not the detectors' class names
  --shown-calibration M  the map of the shown probability: ${SHOWN_CALIBRATION_METHODS.join(', ')} (default ${DEFAULT_SHOWN_CALIBRATION})
  --display-calibration M  the map of the displayed probability, after the shown one (decides nothing): the same methods (default ${DEFAULT_DISPLAY_CALIBRATION})
  --cache DIR            proposals and descriptors per photo (default bench/results/learn-cache/<rule>/<data folder>)
  --rule RULE            segment everything's rule for the proposals: ${EVERYTHING_RULES.join(', ')} (default ${BULK_EVERYTHING_RULE},
                         the one "Label all like my labels" proposes with in the studio, the CLI and the server's jobs;
                         ${DEFAULT_EVERYTHING_RULE} is the interactive one). A cache folder holds one rule's proposals.
  --threads N            onnxruntime intra-op threads (default: all cores)
  --cache-only           fill the cache and stop
  --detections DIR       the detectors' boxes per photo (bench/evalCoco/detectionsCache.ts): adds the fit
                         descriptor to a cache made without it
  --loss-split           where recall at P ≥ 70 % is lost, per class (bench/evalCoco/lossSplit.ts), under "lossSplit"
  --no-ring              the ranker reads no ring descriptor (as before it did); otherwise a cache made without it
                         gets it from the photos' stored SAM embeddings (ringFromEmbeddings.ts, no model runs)
  --framed DIR           whole-object candidates per photo (bench/evalCoco/framedCache.ts), appended to a cache
                         made without them
  --framed-min-score S   only those from a detector's box scored at least S (default 0: all built)
  --framed-containing    only those whose box holds most of another candidate's box
  --head H               how the learned model names a class: ${LEARNED_HEADS.join(', ')} (default ${DEFAULT_LEARNED_HEAD})
  --naming-probe         also count how often other learned heads name a matched proposal's class (namingProbe.ts)
  --unknown-classes L    play these classes as ones no detector knows (unknownClasses.ts): names joined by commas,
                         or crowded-small for the classes the ground truth calls crowded and small (median instance
                         under 32×32 px, ≥ 3 a photo where present, ≥ 20 in all); their figures under "unknownClasses"
  --unknown-keep-boxes   keep the proposals the detectors' boxes of those classes prompted, unnamed (default: dropped)
  --example-seeds DIR    the example path (exampleProposals.ts): the looks of those classes prompt SAM on every photo
                         proposed on; SAM's answers are kept in DIR (needs --unknown-classes and --detections)`;

const commandLine = evalCommandLine('eval coco learn', USAGE, {
  'seed-images': { type: 'string' },
  descriptors: { type: 'string' },
  ablation: { type: 'boolean' },
  show: { type: 'string' },
  cache: { type: 'string' },
  'no-suppress': { type: 'boolean' },
  'no-rank-overlaps': { type: 'boolean' },
  l2: { type: 'string' },
  'step-work': { type: 'string' },
  'skip-partial': { type: 'boolean' },
  'no-detector-prior': { type: 'boolean' },
  'shown-calibration': { type: 'string' },
  'display-calibration': { type: 'string' },
  'cache-only': { type: 'boolean' },
  rule: { type: 'string' },
  'order-seed': { type: 'string' },
  detections: { type: 'string' },
  'loss-split': { type: 'boolean' },
  framed: { type: 'string' },
  'framed-min-score': { type: 'string' },
  'framed-containing': { type: 'boolean' },
  'naming-probe': { type: 'boolean' },
  head: { type: 'string' },
  'no-ring': { type: 'boolean' },
  'unknown-classes': { type: 'string' },
  'unknown-keep-boxes': { type: 'boolean' },
  'example-seeds': { type: 'string' },
});
const fail: (message: string) => never = commandLine.fail;

const storeOfEmbeddings = () => diskEmbeddingStore(join(defaultModelDir(), samFiles().encoder));

export function parseKinds(list: string): DescriptorKind[] {
  const kinds = list.split('+') as DescriptorKind[];
  for (const k of kinds) if (!DESCRIPTOR_KINDS.includes(k)) fail(`unknown descriptor "${k}" (${DESCRIPTOR_KINDS.join(', ')})`);
  return kinds;
}

export async function runLearnEval(argv: readonly string[]): Promise<void> {
  const values = commandLine.parse(argv);
  if (!values) return;
  const dataDir = resolve(values.data ?? '../shared/eval/coco-tiny');
  const name = basename(dataDir);
  const out = resolve(values.out ?? `bench/results/evalLearn-${name}.json`);
  const seedImages = values['seed-images'] === undefined ? 10 : Number(values['seed-images']);
  if (!Number.isInteger(seedImages) || seedImages < 1) fail('--seed-images must be a positive integer');
  const showFrom = values.show === undefined ? 0.3 : Number(values.show);
  if (!(showFrom > 0 && showFrom < 1)) fail('--show must be in (0, 1)');
  const kinds = parseKinds(values.descriptors ?? DEFAULT_DESCRIPTOR_KINDS.join('+'));
  const shownCalibration = (values['shown-calibration'] ?? DEFAULT_SHOWN_CALIBRATION) as ShownCalibrationMethod;
  if (!SHOWN_CALIBRATION_METHODS.includes(shownCalibration)) fail(`--shown-calibration must be one of ${SHOWN_CALIBRATION_METHODS.join(', ')}`);
  const displayCalibration = (values['display-calibration'] ?? DEFAULT_DISPLAY_CALIBRATION) as ShownCalibrationMethod;
  if (!SHOWN_CALIBRATION_METHODS.includes(displayCalibration)) fail(`--display-calibration must be one of ${SHOWN_CALIBRATION_METHODS.join(', ')}`);
  const head = (values.head ?? DEFAULT_LEARNED_HEAD) as LearnedHead;
  if (!LEARNED_HEADS.includes(head)) fail(`--head must be one of ${LEARNED_HEADS.join(', ')}`);
  // The product's rule: what a person's "Label all like my labels" is proposed from wherever it runs.
  const rule = (values.rule ?? BULK_EVERYTHING_RULE) as EverythingRule;
  if (!EVERYTHING_RULES.includes(rule)) fail(`--rule must be one of ${EVERYTHING_RULES.join(', ')}`);
  const cacheDir = resolve(values.cache ?? `bench/results/learn-cache/${rule}/${name}`);
  const orderSeed = values['order-seed'] === undefined ? 0 : Number(values['order-seed']);
  if (!Number.isInteger(orderSeed) || orderSeed < 0) fail('--order-seed must be a non-negative integer');
  const threads = values.threads === undefined ? undefined : Number(values.threads);
  const instances = await commandLine.readInstances<CocoInstancesFile>(dataDir);
  const images = selectImages(instances.images, undefined, values.limit ? Number(values.limit) : undefined);
  if (images.length <= seedImages && !values['cache-only']) fail(`${images.length} photos: none left after ${seedImages} seed photos`);

  // The models load only when a photo is not cached yet.
  let models: Promise<{ engine: SegmentationEngine; detectors: ConceptDetector[] }> | undefined;
  const loadModels = () =>
    (models ??= (async () => ({
      // The photo, and the tile the bulk rule is working on: a tile must not evict the photo's embedding.
      engine: await loadNodeEngine({ threads, embeddingCacheSize: 2, embeddingStore: storeOfEmbeddings() }),
      detectors: await loadNodeDetectors({ threads }),
    }))());
  const started = Date.now();
  const photos: CachedPhoto[] = [];
  for (const [i, info] of images.entries()) {
    let photo: CachedPhoto | undefined;
    try {
      photo = JSON.parse(await readFile(join(cacheDir, `${info.file_name}.json`), 'utf8')) as CachedPhoto;
    } catch {
      // Not cached yet.
    }
    const problem = cacheEntryProblem(photo, rule);
    if (problem) fail(problem);
    if (photo?.version !== LEARN_CACHE_VERSION) {
      const { engine, detectors } = await loadModels();
      photo = await cachedPhoto({ dataDir, cacheDir, engine, detectors, rule }, instances, info);
      process.stderr.write(
        `[${i + 1}/${images.length}] ${info.file_name}: ${photo.proposals.length} proposals, ${photo.instances.length} instances ` +
          `(embed ${photo.ms.embed.toFixed(0)} ms, everything ${photo.ms.everything.toFixed(0)} ms, detect ${photo.ms.detect.toFixed(0)} ms, ` +
          `describe ${photo.ms.describe.toFixed(0)} ms) (${((Date.now() - started) / 1000).toFixed(0)} s)\n`,
      );
    }
    photos.push(photo);
  }
  if (models) {
    const { engine, detectors } = await models;
    await engine.release();
    for (const d of detectors) await d.release();
  }
  if (values['cache-only']) return;

  const categories = new Map(instances.categories.map((c) => [c.id, c.name]));
  const options: ReplayOptions = {
    seedImages,
    kinds,
    showFrom,
    categories,
    suppressParts: !values['no-suppress'],
    rankOverlaps: !values['no-rank-overlaps'],
    skipPartialNegatives: !!values['skip-partial'],
    detectorPrior: !values['no-detector-prior'],
    shownCalibration,
    displayCalibration,
    head,
    ...(values.l2 === undefined ? {} : { l2: Number(values.l2) }),
    ...(values['step-work'] === undefined ? {} : { stepWork: Number(values['step-work']) }),
  };
  const withFramed = values.framed ? await withFramedFromDir(photos, resolve(values.framed), { minScore: Number(values['framed-min-score'] ?? 0), containing: values['framed-containing'] === true }) : photos;
  let unknown: string[] = [];
  try {
    unknown = values['unknown-classes'] === undefined ? [] : unknownClassesOf(values['unknown-classes'], instances);
  } catch (error) {
    fail((error as Error).message);
  }
  const hidden = new Set(unknown);
  if (hidden.size > 0 && kinds.includes('fit') && !values.detections) fail('--unknown-classes with the fit descriptor needs --detections DIR: a cached fit descriptor read every class\'s boxes');
  const blind = hidden.size > 0 ? withFramed.map((p) => hideFromDetectors(p, hidden, values['unknown-keep-boxes'] === true)) : withFramed;
  const withFit = values.detections ? await withFitFromDir(blind, resolve(values.detections), hidden) : blind;
  // The product's ranker reads the ring (overlapRanker.ts), so a replay without it would not be the product's.
  const lacksRing = withFit.some((p) => p.proposals.some((q) => !q.descriptor.ring));
  const described = values['no-ring'] ? withoutRing(withFit) : lacksRing ? await withRingFromEmbeddings(withFit, join(dataDir, 'images'), storeOfEmbeddings()) : withFit;
  if (kinds.includes('fit') && described.some((p) => p.proposals.some((q) => !q.descriptor.fit))) {
    fail(
      `${cacheDir} was made before the fit descriptor: give --detections DIR, made by ` +
        `npx tsx bench/evalCoco/detectionsCache.ts --data ${dataDir} --cache DIR (the detectors only, no SAM), or --descriptors without fit`,
    );
  }
  if (kinds.includes('ring') && values['no-ring']) fail('--descriptors with ring and --no-ring: choose one');
  const session = shuffledOrder(described, orderSeed);
  const scoredRecords: ScoredPhotoRecord[] | undefined = values['loss-split'] ? [] : undefined;
  const probe = values['naming-probe'] ? namingProbe(kinds, (id) => categories.get(id) ?? String(id)) : undefined;
  if (values['example-seeds'] && (hidden.size === 0 || !values.detections)) fail('--example-seeds needs --unknown-classes and --detections');
  const seeded = values['example-seeds']
    ? exampleProposals({ dataDir, instances, detectionsDir: resolve(values.detections!), cacheDir: resolve(values['example-seeds']), unnamed: hidden, ...(threads === undefined ? {} : { threads }) })
    : undefined;
  const main = await replaySession(session, {
    ...options,
    ...(scoredRecords ? { scoredRecords } : {}),
    ...(probe ? { onLessons: probe.onLessons } : {}),
    ...(seeded ? { exampleProposals: seeded.proposalsOn } : {}),
  });
  await seeded?.release();
  const unknownSummary = hidden.size > 0 ? classSetSummary(unknown, main) : undefined;
  const split = scoredRecords && lossSplit(scoredRecords, (id) => categories.get(id) ?? String(id));
  if (probe) process.stderr.write(`naming probe: ${JSON.stringify(probe.counts)}\n`);
  let ablation: Record<string, LearnSummary> | undefined;
  if (values.ablation) {
    ablation = {};
    for (const choice of ablationChoices()) {
      const r = await replaySession(session, { ...options, kinds: choice });
      process.stderr.write(`ablation ${choice.join('+')}: AP50 ${(r.learn.ap50 * 100).toFixed(1)}\n`);
      ablation[choice.join('+')] = r.learn;
    }
  }
  const result = {
    dataset: dataDir,
    images: images.length,
    seedImages,
    orderSeed,
    commit: gitCommit(),
    settings: { ...(hidden.size > 0 ? { unknownClasses: unknown, unknownKeepBoxes: values['unknown-keep-boxes'] === true, exampleSeeds: seeded !== undefined } : {}), rule, descriptors: kinds.join('+'), showFrom, suppressParts: options.suppressParts, rankOverlaps: options.rankOverlaps, skipPartialNegatives: options.skipPartialNegatives, detectorPrior: options.detectorPrior, shownCalibration, displayCalibration, head, ring: !values['no-ring'], framed: values.framed === undefined ? undefined : { minScore: Number(values['framed-min-score'] ?? 0), containing: values['framed-containing'] === true } },
    learn: main.learn,
    ...(unknownSummary ? { unknownClasses: unknownSummary } : {}),
    ...(probe ? { naming: probe.counts } : {}),
    ...(ablation ? { ablation } : {}),
    byClass: main.byClass,
    ...(split ? { lossSplit: split } : {}),
    byImage: main.byImage,
    decisions: main.decisions,
    apLossSplit: main.apLossSplit,
  };
  const pct = (v: number | undefined) => (v === undefined || Number.isNaN(v) ? '–' : (v * 100).toFixed(1));
  const l = main.learn;
  const table = [
    `learned classes on ${name}: ${images.length - seedImages} photos after ${seedImages} labelled by hand, descriptors ${kinds.join('+')}, segment everything's ${rule} rule`,
    '',
    '| AP50 | recall | precision | recall at precision ≥ 70 % | actions/instance | ECE | ms/photo (Node) | learn ms p95 (CPU ms p95) |',
    '|---|---|---|---|---|---|---|---|',
    `| ${pct(l.ap50)} | ${pct(l.recall)} | ${pct(l.precision)} | ${pct(l.recallAtPrecision70)} | ${l.actionsPerInstance.toFixed(2)} | ${pct(l.ece)} | ${l.msPerImageNode.toFixed(0)} | ${l.learnMsP95.toFixed(1)} (${l.learnCpuMsP95.toFixed(1)}) |`,
    '',
    `ECE if exactly calibrated (noise floor on ${l.shown} shown): ${pct(l.eceIfCalibrated)}`,
    acceptAllLine(l.acceptAllHeldOut, l.acceptAllAtEnd),
    '',
    '| shown probability | proposals | mean probability | right |',
    '|---|---|---|---|',
    ...l.reliability.filter((b) => b.count > 0).map((b) => `| ${b.from.toFixed(1)}–${b.to.toFixed(1)} | ${b.count} | ${pct(b.meanProbability)} | ${pct(b.accuracy)} |`),
    ...(ablation
      ? ['', '| descriptors | AP50 | recall | precision | recall at P ≥ 70 % | actions/instance | ECE |', '|---|---|---|---|---|---|---|',
         ...Object.entries(ablation).map(([k, a]) => `| ${k} | ${pct(a.ap50)} | ${pct(a.recall)} | ${pct(a.precision)} | ${pct(a.recallAtPrecision70)} | ${a.actionsPerInstance.toFixed(2)} | ${pct(a.ece)} |`)]
      : []),
    ...(main.byClass.length > 1 ? ['', ...classTable(main.byClass)] : []),
    ...(split ? ['', ...lossSplitTable(split)] : []),
    ...(unknownSummary ? ['', ...classSetTable(unknownSummary, `the classes played as unknown to the detectors (${values['unknown-keep-boxes'] ? 'their boxes kept, unnamed' : 'their boxes dropped'})`)] : []),
  ].join('\n');
  process.stdout.write(`${table}\n`);
  await mkdir(dirname(out), { recursive: true });
  await writeFile(out, `${JSON.stringify(result, null, 2)}\n`);
  process.stderr.write(`eval coco learn: wrote ${out} (${((Date.now() - started) / 1000).toFixed(0)} s)\n`);
}

/** "Accept all" at the default the studio advises before each photo, checked on that photo. */
function acceptAllLine(held: LearnSummary['acceptAllHeldOut'], atEnd: LearnSummary['acceptAllAtEnd']): string {
  const precision = held.precision === undefined ? '–' : `${(held.precision * 100).toFixed(1)} %`;
  const end = atEnd.measuredDefault === undefined ? `none (${atEnd.noDefaultBecause})` : `${Math.round(atEnd.measuredDefault * 100)} %`;
  return (
    `"accept all" at the default advised before each photo, checked on it: ${held.right} right of ${held.count} let through (${precision}); ` +
    `no default offered on ${held.photosWithoutDefault} of ${held.photos} photos; default after the last photo: ${end}`
  );
}

/** The classes with most instances, worst recall first: where each lost its instances. */
function classTable(rows: readonly ClassRow[], count = 15): string[] {
  const pct = (v: number) => (Number.isNaN(v) ? '–' : (v * 100).toFixed(0));
  const worst = [...rows].slice(0, count).sort((a, b) => a.recall - b.recall);
  return [
    `the ${worst.length} classes with most instances, worst recall of the shown first`,
    '| class | instances | with a proposal | proposal given another class | matched by a guess of the class | shown | recall % | precision % | AP50 |',
    '|---|---|---|---|---|---|---|---|---|',
    ...worst.map((r) => `| ${r.classId} | ${r.instances} | ${r.withProposal} | ${r.otherClass} | ${r.guessed} | ${r.shown} | ${pct(r.recall)} | ${pct(r.precision)} | ${pct(r.ap50)} |`),
  ];
}

/**
 * The items in an order drawn from `seed` (Fisher-Yates with Park and Miller's generator, the same on
 * every machine); seed 0 keeps the order given.
 */
export function shuffledOrder<T>(items: readonly T[], seed: number): T[] {
  const out = [...items];
  if (seed === 0) return out;
  let state = seed % 2147483647 || 1;
  const random = () => (state = (state * 48271) % 2147483647) / 2147483647;
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

/** Every combination of the kinds (every kind alone, every pair, every triple, all of them), smallest first. */
export function ablationChoices(kinds: readonly DescriptorKind[] = DESCRIPTOR_KINDS): DescriptorKind[][] {
  const subsets = kinds.reduce<DescriptorKind[][]>((all, k) => [...all, ...all.map((s) => [...s, k])], [[]]);
  return subsets.filter((s) => s.length > 0).sort((a, b) => a.length - b.length);
}
