import { describe, expect, it } from 'vitest';
import type { Annotation } from '../annotation';
import type { Dataset } from './dataset';
import { readDatasetFiles } from './readFiles';
import { csvRecords, tagsCsvFormat, toTagsCsv } from './tagsCsv';

const tag = (classId: number, label: string): Annotation => ({ id: `t${classId}`, kind: 'tag', label, classId, confidence: 1, color: '#fff', visible: true, source: 'local', polygons: [] });
const dataset: Dataset = {
  categories: [
    { id: 1, name: 'cat', color: '#f00' },
    { id: 2, name: 'dog, big', color: '#0f0' },
  ],
  images: [
    { image: { id: 'a', name: 'a.jpg', width: 2, height: 2 }, objects: [], tags: [{ object: tag(1, 'cat'), categoryId: 1 }, { object: tag(2, 'dog, big'), categoryId: 2 }] },
    { image: { id: 'b', name: 'b "2".png', width: 2, height: 2 }, objects: [], tags: [{ object: tag(2, 'dog, big'), categoryId: 2 }] },
    { image: { id: 'c', name: 'untagged.png', width: 2, height: 2 }, objects: [] },
  ],
  outsideImage: [],
};

describe('tags CSV', () => {
  it('writes the header and one row per tag, quoting what needs it', () => {
    expect(toTagsCsv(dataset)).toBe('file_name,class\r\na.jpg,cat\r\na.jpg,"dog, big"\r\n"b ""2"".png","dog, big"\r\n');
  });

  it('reads back every tag through the importers, with its class', async () => {
    const file = await tagsCsvFormat.write(dataset, {});
    const read = await readDatasetFiles([{ name: file.name, bytes: file.bytes }]);
    expect(read.dataset.problems).toEqual([]);
    expect(read.dataset.annotations.map((a) => [a.fileName, a.className, a.tag])).toEqual([
      ['a.jpg', 'cat', true],
      ['a.jpg', 'dog, big', true],
      ['b "2".png', 'dog, big', true],
    ]);
  });

  it('names a row without a class instead of dropping it, and leaves CSVs of other shapes alone', async () => {
    const bytes = new TextEncoder().encode('\uFEFFfile_name,class\na.jpg,\nb.jpg,cat\n');
    const read = await readDatasetFiles([{ name: 'labels.csv', bytes }]);
    expect(read.dataset.problems).toEqual(['labels.csv row 2: needs a file name and a class']);
    expect(read.dataset.annotations).toHaveLength(1);
    expect(await tagsCsvFormat.read!([{ name: 'other.csv', bytes: new TextEncoder().encode('x,y\n1,2\n') }])).toBeUndefined();
  });

  it('parses quoted line breaks as part of a field', () => {
    expect(csvRecords('a,"b\nc"\r\nd,e')).toEqual([
      ['a', 'b\nc'],
      ['d', 'e'],
    ]);
  });
});
