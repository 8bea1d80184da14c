/**
 * `label`: "Label all like my labels" over a folder. The objects of a COCO file (matched to the
 * folder's photos by file name) teach the learned classes (src/engine/learn/); every other photo of
 * the folder gets proposals of those classes, written as COCO with their scores. Progress on stderr.
 */
import { availableParallelism } from 'node:os';
import { readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { extname, join } from 'node:path';
import type { Annotation, AnnotatedImages, ClassDef, ImageEntry } from '../annotations/annotation';
import { colorForIndex } from '../annotations/annotation';
import { readCoco, toCoco } from '../annotations/formats/coco';
import { sessionDataset } from '../annotations/formats/dataset';
import type { ImportedAnnotation } from '../annotations/formats/imported';
import { proposedBy } from '../annotations/review';
import { ImageDecodeError, readImageFile } from '../engine/adapters/nodeImage';
import { loadNodeEngine } from '../engine/adapters/ortNode';
import { loadNodeDetectors } from '../engine/adapters/textNode';
import type { SegmentationEngine } from '../engine/engine';
import { BULK_EVERYTHING_RULE, EVERYTHING_RULES, type EverythingRule } from '../engine/everything/segmentEverything';
import { LearnedClasses } from '../engine/learn/learnedClasses';
import { photoCandidates } from '../engine/learn/photoCandidates';
import { classifyCandidates, lessonsOfLabelledPhoto, SHOW_FROM, type Candidate, type LabelledRegion } from '../engine/learn/proposeLearned';
import { maskOutline, rasterizePolygons } from '../engine/polygons';
import type { ConceptDetector } from '../engine/text/detector';
import { cornerToCenterBox } from '../engine/text/pipeline';
import type { BinaryMask, RgbaImage } from '../engine/types';
import { InputError, parseEngineFlags, parseFlags, parseNumber, UsageError } from './args';

export const LABEL_USAGE = `usage: label --images DIR --examples labelled.coco.json --out proposals.coco.json [--show P] [--rule ${EVERYTHING_RULES.join('|')}] [--threads N]

  --images DIR       the photos (PNG, JPEG, WebP, GIF, AVIF or TIFF)
  --examples FILE    COCO instances file of the person's labels on some of them (by file_name):
                     polygons, RLE or boxes (a box teaches SAM's mask of it)
  --out FILE         COCO file of the proposals on the other photos, each with its score
                     (attributes.score and score) and review_source "learned"
  --show P           the lowest probability proposed (default ${SHOW_FROM})
  --rule R           segment everything's rule for the candidates (default ${BULK_EVERYTHING_RULE}, the bulk rule)
  --tolerance PX     polygon simplification tolerance in pixels
  --threads N        inference threads (default: all cores); the decoder runs on as many worker threads`;

const IMAGE_EXTENSIONS = new Set(['.png', '.jpg', '.jpeg', '.webp', '.gif', '.avif', '.tif', '.tiff']);

export interface LabelCommandOptions {
  imagesDir: string;
  examplesPath: string;
  outPath: string;
  showFrom: number;
  rule: EverythingRule;
  tolerance?: number;
  threads?: number;
}

export function parseLabelArgs(argv: readonly string[]): LabelCommandOptions {
  const flags = parseFlags(argv, {
    images: { value: true },
    examples: { value: true },
    out: { value: true },
    show: { value: true },
    rule: { value: true },
    tolerance: { value: true },
    threads: { value: true },
  });
  const required = (name: string, what: string) => {
    const value = flags.get(name)?.[0];
    if (!value) throw new UsageError(`--${name} ${what} is required`);
    return value;
  };
  const showText = flags.get('show')?.[0];
  const showFrom = showText === undefined ? SHOW_FROM : parseNumber(showText, '--show');
  if (!(showFrom > 0 && showFrom < 1)) throw new UsageError('--show must be between 0 and 1');
  const rule = (flags.get('rule')?.[0] ?? BULK_EVERYTHING_RULE) as EverythingRule;
  if (!EVERYTHING_RULES.includes(rule)) throw new UsageError(`--rule must be one of ${EVERYTHING_RULES.join(', ')}`);
  return { imagesDir: required('images', 'DIR'), examplesPath: required('examples', 'FILE'), outPath: required('out', 'FILE'), showFrom, rule, ...parseEngineFlags(flags) };
}

/** The photos of the folder by file name, in name order; a missing folder or one without photos is an InputError. */
export async function photosIn(dir: string): Promise<string[]> {
  const info = await stat(dir).catch(() => undefined);
  if (!info) throw new InputError(`--images ${dir}: no such folder`);
  if (!info.isDirectory()) throw new InputError(`--images ${dir}: not a folder`);
  const names = (await readdir(dir)).filter((n) => IMAGE_EXTENSIONS.has(extname(n).toLowerCase())).sort();
  if (names.length === 0) throw new InputError(`--images ${dir}: no photos in it`);
  return names;
}

/** The examples file's objects grouped by the folder's photo they are on; nothing usable is an InputError. */
export async function examplesByPhoto(path: string, photos: readonly string[]): Promise<Map<string, ImportedAnnotation[]>> {
  const text = await readFile(path, 'utf8').catch((error: NodeJS.ErrnoException) => {
    throw new InputError(`--examples ${path}: ${error.code === 'ENOENT' ? 'no such file' : error.message}`);
  });
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new InputError(`--examples ${path}: not JSON (${(error as Error).message})`);
  }
  let dataset;
  try {
    dataset = readCoco(json);
  } catch (error) {
    throw new InputError(`--examples ${path}: ${(error as Error).message}`);
  }
  const inFolder = new Set(photos);
  const byPhoto = new Map<string, ImportedAnnotation[]>();
  for (const a of dataset.annotations) {
    if (a.tag || !inFolder.has(a.fileName)) continue;
    byPhoto.set(a.fileName, [...(byPhoto.get(a.fileName) ?? []), a]);
  }
  if (byPhoto.size === 0) {
    const why = dataset.annotations.length === 0 ? 'it holds no objects' : `none of its ${new Set(dataset.annotations.map((a) => a.fileName)).size} labelled photos is in the folder`;
    throw new InputError(`--examples ${path}: no examples to learn from: ${why}`);
  }
  return byPhoto;
}

interface Models {
  engine: SegmentationEngine;
  detectors: ConceptDetector[];
}

/** One photo embedded, with segment everything's candidates and a way to describe masks on it. */
async function openPhoto(models: Models, path: string, name: string, rule: EverythingRule) {
  let image: RgbaImage;
  try {
    image = await readImageFile(path);
  } catch (error) {
    if (error instanceof ImageDecodeError) throw new InputError(`${name}: ${error.message}`);
    throw error;
  }
  const { imageKey } = await models.engine.embed(image, name);
  return { image, imageKey, ...(await photoCandidates(models.engine, imageKey, image, models.detectors, rule)) };
}

/** An example's mask: its own pixels, its polygons filled, or SAM's answer to its box. */
async function exampleMask(engine: SegmentationEngine, imageKey: string, image: RgbaImage, a: ImportedAnnotation): Promise<BinaryMask> {
  if (a.mask) return a.mask;
  if (a.polygons) return rasterizePolygons(a.polygons, image.width, image.height);
  if (a.rings) return rasterizePolygons(a.rings.map((outer) => ({ outer, holes: [] })), image.width, image.height);
  const [x, y, w, h] = a.box!;
  const { candidates } = await engine.predict(imageKey, { box: cornerToCenterBox({ x0: x, y0: y, x1: x + w, y1: y + h }) }, { multimask: false, mirrorAverage: false });
  return candidates[0].mask;
}

/** Returns the process exit code. */
export async function labelCommand(argv: readonly string[], io: { stdout: (s: string) => void; stderr: (s: string) => void }): Promise<number> {
  const options = parseLabelArgs(argv);
  const photos = await photosIn(options.imagesDir);
  const examples = await examplesByPhoto(options.examplesPath, photos);
  const targets = photos.filter((name) => !examples.has(name));
  // A bulk job: segment everything's box prompts are decoded side by side, one per core (decoderPool.ts).
  const decoderWorkers = options.threads ?? availableParallelism();
  const models: Models = { engine: await loadNodeEngine({ threads: options.threads, embeddingCacheSize: 1, decoderWorkers }), detectors: await loadNodeDetectors({ threads: options.threads }) };
  const started = performance.now();
  const elapsed = () => `${((performance.now() - started) / 1000).toFixed(0)} s`;
  try {
    const model = new LearnedClasses();
    let n = 0;
    for (const [name, objects] of examples) {
      const { image, imageKey, candidates, describe } = await openPhoto(models, join(options.imagesDir, name), name, options.rule);
      const labelled: LabelledRegion[] = [];
      for (const a of objects) labelled.push({ classId: a.className, mask: await exampleMask(models.engine, imageKey, image, a) });
      const lessons = lessonsOfLabelledPhoto(candidates, labelled);
      const descriptors = describe([...labelled.map((l) => l.mask!), ...candidates.map((c) => c.mask)]);
      model.learnAll([...labelled.map((l) => l.classId), ...lessons].map((classId, i) => ({ descriptor: descriptors[i], classId })));
      io.stderr(`[label] learned from ${name} (${++n}/${examples.size}): ${objects.length} objects, ${candidates.length} candidates (${elapsed()})\n`);
    }
    const classes: ClassDef[] = model.classIds.map((name, i) => ({ id: i + 1, name, color: colorForIndex(i) }));
    const images: ImageEntry[] = [];
    const objects: Record<string, Annotation[]> = {};
    for (const [i, name] of targets.entries()) {
      const { image, candidates, describe } = await openPhoto(models, join(options.imagesDir, name), name, options.rule);
      const proposals = classifyCandidates(model, candidates, describe(candidates.map((c) => c.mask)), options.showFrom);
      images.push({ id: name, name, width: image.width, height: image.height });
      objects[name] = proposals.map((p, k) => {
        const classDef = classes.find((c) => c.name === p.classId)!;
        return {
          id: `${name}-${k + 1}`,
          label: p.classId,
          classId: classDef.id,
          confidence: p.probability,
          color: classDef.color,
          visible: true,
          source: 'local',
          review: proposedBy('learned'),
          polygons: maskOutline(p.mask, { tolerance: options.tolerance }),
          mask: p.mask,
        };
      });
      const summary = proposals.map((p) => `${p.classId} ${p.probability.toFixed(2)}`).join(', ') || 'none';
      io.stderr(`[label] ${i + 1}/${targets.length} ${name}: ${proposals.length} proposals (${summary}) (${elapsed()})\n`);
    }
    await writeFile(options.outPath, `${JSON.stringify(proposalsCoco({ images, objects, classes }))}\n`);
    const total = Object.values(objects).reduce((s, o) => s + o.length, 0);
    io.stderr(`[label] wrote ${total} proposals on ${targets.length} photos to ${options.outPath} (${elapsed()})\n`);
    return 0;
  } finally {
    for (const detector of models.detectors) await detector.release();
    await models.engine.release();
  }
}

/** The proposals as COCO, each annotation's score also at the top level, where COCO results files keep it. */
export function proposalsCoco(doc: AnnotatedImages) {
  const coco = toCoco(sessionDataset(doc, { includeHidden: true, includeProposals: true }), { rleForHoles: false });
  return { ...coco, annotations: coco.annotations.map((a) => ({ ...a, score: a.attributes?.score })) };
}
