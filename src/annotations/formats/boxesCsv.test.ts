import { describe, expect, it } from 'vitest';
import type { Annotation } from '../annotation';
import { boxesCsvFormat } from './boxesCsv';
import { sessionDataset } from './dataset';
import { writeFormat } from './format';
import { readDatasetFiles } from './readFiles';

const base = { classId: 1, confidence: 1, color: '#f00', visible: true, source: 'local' as const, polygons: [] };
const mask: Annotation = { ...base, id: 'm', label: 'cup, tall', polygons: [{ outer: [[2, 3], [12, 3], [12, 9], [2, 9]], holes: [] }] };
const box: Annotation = { ...base, id: 'b', kind: 'box', box: [20.5, 4, 10.25, 6], label: 'cup, tall' };
const tag: Annotation = { ...base, id: 't', kind: 'tag', label: 'kitchen', classId: 2 };
const session = {
  images: [{ id: 'i', name: 'shelf "1".jpg', width: 40, height: 20 }],
  objects: { i: [mask, box, tag] },
  classes: [
    { id: 1, name: 'cup, tall', color: '#f00' },
    { id: 2, name: 'kitchen', color: '#0f0' },
  ],
};

describe('boxes CSV', () => {
  it('writes one row per object, a mask as its box, and names the image tag it cannot hold and the mask it wrote as a box', async () => {
    const { file, notes } = await writeFormat(boxesCsvFormat, sessionDataset(session, { includeHidden: false }), {});
    expect(new TextDecoder().decode(file.bytes)).toBe('image,class,x,y,w,h\r\n"shelf ""1"".jpg","cup, tall",2,3,10,6\r\n"shelf ""1"".jpg","cup, tall",20.5,4,10.25,6\r\n');
    expect(notes).toEqual(['Boxes CSV cannot hold image tags: 1 image tag left out (shelf "1".jpg: kitchen)', 'Boxes CSV writes masks as their boxes: 1 mask written as a box (shelf "1".jpg: cup, tall)']);
  });

  it('reads every row back through the importers as a box of its class', async () => {
    const { file } = await writeFormat(boxesCsvFormat, sessionDataset(session, { includeHidden: false }), {});
    const read = await readDatasetFiles([{ name: file.name, bytes: file.bytes }]);
    expect(read.dataset.problems).toEqual([]);
    expect(read.dataset.annotations.map((a) => [a.fileName, a.className, a.box])).toEqual([
      ['shelf "1".jpg', 'cup, tall', [2, 3, 10, 6]],
      ['shelf "1".jpg', 'cup, tall', [20.5, 4, 10.25, 6]],
    ]);
  });

  it('names the rows it cannot read instead of dropping them, and leaves the image-tags CSV to its reader', async () => {
    const bytes = new TextEncoder().encode('\uFEFFImage,Class,X,Y,W,H\na.jpg,cup,1,2,3,4\nb.jpg,,1,2,3,4\nc.jpg,cup,1,two,3,4\nd.jpg,cup,1,2,0,4\n');
    const read = await readDatasetFiles([
      { name: 'boxes.csv', bytes },
      { name: 'tags.csv', bytes: new TextEncoder().encode('file_name,class\na.jpg,kitchen\n') },
    ]);
    expect(read.dataset.annotations.map((a) => [a.fileName, a.className, a.box ?? 'tag'])).toEqual([
      ['a.jpg', 'cup', [1, 2, 3, 4]],
      ['a.jpg', 'kitchen', 'tag'],
    ]);
    expect(read.dataset.problems).toEqual(['boxes.csv row 3: needs an image and a class', 'boxes.csv row 4: x, y, w and h must be numbers', 'boxes.csv row 5: a box of no area']);
  });
});
