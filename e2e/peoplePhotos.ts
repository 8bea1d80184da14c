import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import sharp, { type OverlayOptions } from 'sharp';

/**
 * Photos with several people, made from the project's public-domain samples (public/samples,
 * LICENSES.md there): the astronaut, cut out of astronaut.png, pasted 2–4 times — scaled, some
 * mirrored — onto the other samples as backgrounds. Each photo says where it put each person, so a
 * test can check what was labelled against it.
 */

export interface PlacedPerson {
  /** Where the pasted astronaut lies, in the photo's pixels. */
  readonly left: number;
  readonly top: number;
  readonly width: number;
  readonly height: number;
  readonly mirrored: boolean;
}

export interface PeoplePhoto {
  readonly name: string;
  readonly file: string;
  readonly width: number;
  readonly height: number;
  readonly people: readonly PlacedPerson[];
}

const SAMPLES = path.join(process.cwd(), 'public', 'samples');
/** The astronaut in astronaut.png (512×512): head to the bottom edge, without the flag and the shuttle. */
const ASTRONAUT = { left: 20, top: 10, width: 345, height: 502 } as const;
const PHOTO_WIDTH = 800;

interface PhotoPlan {
  readonly name: string;
  readonly background: string;
  readonly mirrorBackground: boolean;
  /** Each person, left to right: height as a fraction of the photo's, and whether mirrored; spaced evenly. */
  readonly people: ReadonlyArray<{ h: number; mirrored: boolean }>;
}

const PLANS: readonly PhotoPlan[] = [
  { name: 'people-cat.png', background: 'chelsea.png', mirrorBackground: false, people: [ { h: 0.8, mirrored: false }, { h: 0.7, mirrored: true } ] },
  { name: 'people-coffee.png', background: 'coffee.png', mirrorBackground: false, people: [ { h: 0.62, mirrored: false }, { h: 0.55, mirrored: true }, { h: 0.65, mirrored: false } ] },
  { name: 'people-rocket.png', background: 'rocket.jpg', mirrorBackground: false, people: [ { h: 0.5, mirrored: false }, { h: 0.45, mirrored: true }, { h: 0.5, mirrored: false }, { h: 0.44, mirrored: true } ] },
  { name: 'people-cat-2.png', background: 'chelsea.png', mirrorBackground: true, people: [ { h: 0.6, mirrored: true }, { h: 0.68, mirrored: false }, { h: 0.58, mirrored: true } ] },
  { name: 'people-rocket-2.png', background: 'rocket.jpg', mirrorBackground: true, people: [ { h: 0.78, mirrored: true }, { h: 0.72, mirrored: false } ] },
];

async function astronautCut(height: number, mirrored: boolean): Promise<{ data: Buffer; width: number }> {
  const width = Math.round((ASTRONAUT.width * height) / ASTRONAUT.height);
  let cut = sharp(path.join(SAMPLES, 'astronaut.png')).removeAlpha().extract(ASTRONAUT).resize(width, height);
  if (mirrored) cut = cut.flop();
  return { data: await cut.png().toBuffer(), width };
}

async function makePhoto(plan: PhotoPlan, dir: string): Promise<PeoplePhoto> {
  const source = sharp(path.join(SAMPLES, plan.background)).removeAlpha();
  const meta = await source.metadata();
  const height = Math.round((meta.height! * PHOTO_WIDTH) / meta.width!);
  let background = source.resize(PHOTO_WIDTH, height);
  if (plan.mirrorBackground) background = background.flop();
  const backgroundPng = await background.png().toBuffer();

  const cuts = await Promise.all(plan.people.map(async (p) => ({ ...p, height: Math.round(p.h * height), ...(await astronautCut(Math.round(p.h * height), p.mirrored)) })));
  const gap = (PHOTO_WIDTH - cuts.reduce((sum, c) => sum + c.width, 0)) / (cuts.length + 1);
  if (gap < 16) throw new Error(`${plan.name}: the people do not fit side by side`);
  const people: PlacedPerson[] = [];
  const layers: OverlayOptions[] = [];
  let left = gap;
  for (const cut of cuts) {
    const placed = { left: Math.round(left), top: height - cut.height, width: cut.width, height: cut.height, mirrored: cut.mirrored };
    people.push(placed);
    layers.push({ input: cut.data, left: placed.left, top: placed.top });
    left += cut.width + gap;
  }
  const file = path.join(dir, plan.name);
  writeFileSync(file, await sharp(backgroundPng).composite(layers).png().toBuffer());
  return { name: plan.name, file, width: PHOTO_WIDTH, height, people };
}

/** Writes the five photos into `dir` and says where each person is. */
export async function makePeoplePhotos(dir: string): Promise<PeoplePhoto[]> {
  mkdirSync(dir, { recursive: true });
  const photos: PeoplePhoto[] = [];
  for (const plan of PLANS) photos.push(await makePhoto(plan, dir));
  return photos;
}
