import { describe, expect, it } from 'vitest';
import { isTag } from '../../annotations/annotation';
import { sessionDataset, withImageBytes } from '../../annotations/formats/dataset';
import { keepHeldKinds } from '../../annotations/formats/format';
import { readDatasetFiles } from '../../annotations/formats/readFiles';
import { FORMATS, formatById } from '../../annotations/formats/registry';
import { readZip } from '../../annotations/formats/zip';
import { addImage } from '../state/documentOps';
import { emptyDocument, type StudioDocument } from '../state/model';
import { tagClassesOf, toggleTag } from '../state/tagOps';
import { importAnnotations } from './importAnnotations';
import { IMAGE_A, IMAGE_B, OUTLINE, testSession } from './testSession';

let ids = 0;
const newId = () => `id-${++ids}`;

/** The format tests' session (masks, holes, a deleted class...) with image tags: a.png person + cup, b.jpg frisbee. */
function taggedSession(): StudioDocument {
  let doc = testSession();
  doc = toggleTag(doc, IMAGE_A.id, 1, newId);
  doc = toggleTag(doc, IMAGE_A.id, 4, newId);
  return toggleTag(doc, IMAGE_B.id, 3, newId);
}
const photoBytes = (name: string) => new TextEncoder().encode(`photo ${name}`);
const tagNames = (doc: StudioDocument, imageId: string) => tagClassesOf(doc, imageId).map((c) => c.name);

async function exportAndReadBack(formatId: string, into: StudioDocument) {
  const format = formatById(formatId)!;
  const dataset = withImageBytes(sessionDataset(taggedSession(), { includeHidden: true }), (i) => photoBytes(i.name));
  const file = await format.write(dataset, {});
  const read = await readDatasetFiles([{ name: file.name, bytes: file.bytes }]);
  return { dataset, file, read, result: importAnnotations(into, read.dataset, newId, OUTLINE) };
}

const fresh = () => [IMAGE_B, IMAGE_A].reduce((d, i) => addImage(d, i), emptyDocument());

describe.each(['tags-csv', 'class-folders'])('%s round trip of a session with masks and image tags', (formatId) => {
  it('gives back every tag on its image with its class, and says the masks were left out', async () => {
    const { dataset, read, result } = await exportAndReadBack(formatId, fresh());
    expect(read.dataset.problems).toEqual([]);
    expect(result.unmatched).toEqual([]);
    expect(tagNames(result.doc, IMAGE_A.id).sort()).toEqual(['cup', 'person']);
    expect(tagNames(result.doc, IMAGE_B.id)).toEqual(['frisbee']);
    expect(Object.values(result.doc.objects).flat().every(isTag)).toBe(true);
    const label = formatById(formatId)!.label;
    expect(keepHeldKinds(formatById(formatId)!, dataset).notes).toEqual([expect.stringMatching(new RegExp(`^${label} cannot hold masks: 5 masks left out \\(`))]);
  });

  it('adds nothing when the same file is imported again', async () => {
    const first = await exportAndReadBack(formatId, fresh());
    const again = importAnnotations(first.result.doc, first.read.dataset, newId, OUTLINE);
    expect(again.added).toBe(0);
    expect(again.alreadyPresent).toBe(3);
  });
});

describe('class folders zip', () => {
  it('puts each photo in the folder of every class it is tagged with, and opens each photo once', async () => {
    const { file, read } = await exportAndReadBack('class-folders', fresh());
    expect((await readZip(file.bytes)).map((e) => e.name).sort()).toEqual(['cup/a.png', 'frisbee/b.jpg', 'person/a.png']);
    expect(read.images.map((i) => i.name).sort()).toEqual(['frisbee/b.jpg', 'person/a.png']);
  });
});

describe('formats that cannot hold image tags', () => {
  const withoutTags = FORMATS.filter((f) => !f.holds.tag);

  it.each(withoutTags.map((f) => [f.id, f] as const))('%s says which tags it left out, by image and class', (_id, format) => {
    const dataset = sessionDataset(taggedSession(), { includeHidden: true });
    expect(keepHeldKinds(format, dataset).notes.filter((n) => n.includes('image tags'))).toEqual([`${format.label} cannot hold image tags: 3 image tags left out (a.png: person, a.png: cup, b.jpg: frisbee)`]);
  });

  it('includes YOLO segmentation and COCO, and still write every mask, none of it counted as outside the image', async () => {
    expect(withoutTags.map((f) => f.id)).toEqual(expect.arrayContaining(['yolo', 'coco']));
    const dataset = sessionDataset(taggedSession(), { includeHidden: true });
    expect(dataset.outsideImage).toEqual([]);
    expect(dataset.images.map((e) => e.objects.length)).toEqual([3, 2]);
  });

  it('say nothing when the session has no tags', () => {
    const dataset = sessionDataset(testSession(), { includeHidden: true });
    for (const format of FORMATS.filter((f) => f.holds.mask)) expect(keepHeldKinds(format, dataset).notes.filter((n) => n.includes('image tags'))).toEqual([]);
  });
});
