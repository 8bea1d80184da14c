import { describe, expect, it } from 'vitest';
import type { Annotation } from '../annotation';
import { objectGeometry } from '../objectGeometry';
import { LearnedClasses, type LearnedClassesState } from '../../engine/learn/learnedClasses';
import { APPEARANCE_LENGTH } from '../../engine/learn/descriptors';
import type { Dataset } from './dataset';
import { LEARNED_MODEL_FILE } from './learnedModelFile';
import { readDatasetFiles } from './readFiles';
import { FORMATS, formatById, writeFormat } from './registry';
import { readZip, writeZip, textEntry } from './zip';

function taughtModel(): LearnedClassesState {
  const model = new LearnedClasses({ kinds: ['appearance'] });
  const region = (centre: number, i: number) => ({ sam: [], detectors: [], backbone: [], appearance: Array.from({ length: APPEARANCE_LENGTH }, (_, j) => centre + ((i * 7 + j) % 5) * 0.01) });
  model.learnAll([...[0, 1, 2].map((i) => ({ descriptor: region(1, i), classId: '1' })), ...[0, 1, 2].map((i) => ({ descriptor: region(-1, i), classId: null }))]);
  return model.toJSON();
}

const square: Annotation = {
  id: 'o1',
  kind: 'mask',
  label: 'raccoon',
  classId: 1,
  confidence: 1,
  color: '#f00',
  visible: true,
  source: 'local',
  polygons: [{ outer: [[1, 1], [8, 1], [8, 8], [1, 8]], holes: [] }],
};

const dataset = (learnedModel?: LearnedClassesState): Dataset => ({
  categories: [{ id: 1, name: 'raccoon', color: '#f00' }],
  images: [
    {
      image: { id: 'a', name: 'a.png', width: 10, height: 10 },
      objects: [{ object: square, kind: 'mask', categoryId: 1, geometry: objectGeometry(square, 10, 10)! }],
    },
  ],
  outsideImage: [],
  ...(learnedModel ? { learnedModel } : {}),
});

describe('the learned model with the dataset', () => {
  it('every zip format carries it as learned-model.json, and importing the zip restores it as it was', async () => {
    const model = taughtModel();
    const zips = FORMATS.filter((f) => f.id !== 'class-folders');
    let checked = 0;
    for (const format of zips) {
      const { file, notes } = await writeFormat(format, dataset(model), {});
      if (file.mime !== 'application/zip') continue;
      checked++;
      expect(notes.filter((n) => n.includes('learned model')), format.id).toEqual([]);
      const entries = await readZip(file.bytes);
      expect(entries.filter((e) => e.name === LEARNED_MODEL_FILE), format.id).toHaveLength(1);
      const read = await readDatasetFiles([{ name: file.name, bytes: file.bytes }]);
      expect(read.dataset.learnedModel, format.id).toEqual(model);
      // Restored, it classifies as the model that was exported.
      const probe = { sam: [], detectors: [], backbone: [], appearance: new Array<number>(APPEARANCE_LENGTH).fill(1) };
      expect(LearnedClasses.fromJSON(read.dataset.learnedModel!).classify(probe)).toEqual(LearnedClasses.fromJSON(model).classify(probe));
      // The model file is not taken for a photo or an annotation file of the format.
      expect(read.images.map((f) => f.name)).not.toContain(LEARNED_MODEL_FILE);
    }
    expect(checked).toBeGreaterThanOrEqual(4);
  });

  it('the Maskwright dataset JSON holds it in its own field; a single-file format without a place says so', async () => {
    const model = taughtModel();
    const { file, notes } = await writeFormat(formatById('maskwright')!, dataset(model), {});
    expect(notes).toEqual([]);
    expect(JSON.parse(new TextDecoder().decode(file.bytes)).learnedModel).toEqual(model);
    expect((await readDatasetFiles([{ name: file.name, bytes: file.bytes }])).dataset.learnedModel).toEqual(model);

    const coco = await writeFormat(formatById('coco')!, dataset(model), {});
    expect(coco.notes.join(' ')).toMatch(/no place for the learned model/);
    // Without a model nothing is added and nothing is said.
    const plain = await writeFormat(formatById('yolo-detection')!, dataset(), {});
    expect(plain.notes).toEqual(['YOLO detection zip writes masks as their boxes: 1 mask written as a box (a.png: raccoon)']);
    expect((await readZip(plain.file.bytes)).map((e) => e.name)).not.toContain(LEARNED_MODEL_FILE);
  });

  it('a learned-model.json that is not a model is left out with a problem, the annotations still read', async () => {
    const { file } = await writeFormat(formatById('yolo-detection')!, dataset(), {});
    const entries = [...(await readZip(file.bytes)), textEntry(LEARNED_MODEL_FILE, JSON.stringify({ version: 99, photos: ['a.png'] }))];
    const read = await readDatasetFiles([{ name: 'x.zip', bytes: writeZip(entries) }]);
    expect(read.dataset.learnedModel).toBeUndefined();
    expect(read.dataset.problems.join(' ')).toMatch(/learned-model\.json is not a learned model/);
    expect(read.dataset.annotations).toHaveLength(1);
  });
});
