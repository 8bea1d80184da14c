/**
 * The learned model out with a dataset and back in, through the real writers and readers (a YOLO
 * zip, the Maskwright JSON): an export carries it only once a class is taught; an import restores it,
 * and a session that had taught its own classes keeps its labels, taught into the imported model.
 */
import { describe, expect, it } from 'vitest';
import { readDatasetFiles } from '../../annotations/formats/readFiles';
import { FORMATS, writeFormat } from '../../annotations/formats/registry';
import { importAnnotations } from '../export/importAnnotations';
import { documentLessons } from './lessons';
import { datasetWithLearnedModel, restoreImportedModel } from './datasetLearnedModel';
import { documentWith, drawn, examplesOf, testStudio } from './testLearners';

const OPTIONS = { includeHidden: true, includeProposals: false };
const format = (id: string) => FORMATS.find((f) => f.id === id)!;
let ids = 0;
const newId = () => `imported-${++ids}`;

async function exported(studio: ReturnType<typeof testStudio>, formatId: string) {
  const model = studio.learner.taughtClasses().length ? studio.learner.learnedModel().model : undefined;
  const { file } = await writeFormat(format(formatId), datasetWithLearnedModel(studio.doc, OPTIONS, model), {});
  return (await readDatasetFiles([{ name: file.name, bytes: file.bytes }])).dataset;
}

describe('the learned model in datasets', () => {
  it('is left out of an export while no class is taught', async () => {
    const untaught = testStudio([drawn('red', 0)]);
    expect((await exported(untaught, 'maskwright')).learnedModel).toBeUndefined();
  });

  for (const formatId of ['yolo-detection', 'maskwright']) {
    it(`comes back from a ${formatId} export into a fresh session, which teaches nothing twice`, async () => {
      const teacher = testStudio([drawn('red', 0), drawn('blue', 0), drawn('blue', 1)]);
      await teacher.learner.learnPending();
      const dataset = await exported(teacher, formatId);
      expect(dataset.learnedModel).toEqual(teacher.learner.learnedModel().model);

      const fresh = testStudio();
      const result = importAnnotations(fresh.doc, dataset, newId, { tolerance: 1 });
      expect(documentLessons(result.doc).size).toBe(3);
      const said = await restoreImportedModel(dataset.learnedModel!, fresh.doc, result.doc, { taughtClasses: () => fresh.learner.taughtClasses(), adopt: (m, known) => fresh.learner.adoptModel(m, known) });
      fresh.doc = result.doc;
      expect(said).toBe("The dataset's learned model (red, blue) was restored.");
      await fresh.learner.learnPending();
      expect(fresh.described).toBe(0);
      expect(examplesOf(fresh, 'blue')).toBe(2);
    });
  }

  it("replaces a session's own model, and the session's labels are taught into the imported one", async () => {
    const teacher = testStudio([drawn('red', 0), drawn('red', 1)]);
    await teacher.learner.learnPending();
    const dataset = await exported(teacher, 'maskwright');

    const session = testStudio([drawn('green', 0, 'mine')]);
    await session.learner.learnPending();
    const before = session.doc;
    const result = importAnnotations(documentWith([]), dataset, newId, { tolerance: 1 });
    session.doc = documentWith([...(before.objects[before.images[0].id] ?? []), ...(result.doc.objects[before.images[0].id] ?? [])]);
    const said = await restoreImportedModel(dataset.learnedModel!, before, session.doc, { taughtClasses: () => session.learner.taughtClasses(), adopt: (m, known) => session.learner.adoptModel(m, known) });
    expect(said).toBe(
      "The dataset's learned model (red) was restored. It replaced this session's (green); this session's 1 labelled object is taught into it again (its background examples and review statistics are not kept).",
    );
    const describedBefore = session.described;
    await session.learner.learnPending();
    expect(session.described - describedBefore).toBe(1);
    expect(session.learner.taughtClasses().sort()).toEqual(['green', 'red']);
    expect(examplesOf(session, 'red')).toBe(2);
  });

  it('says so, and keeps the session as it was, when the model is not one this studio reads', async () => {
    const session = testStudio([drawn('green', 0)]);
    await session.learner.learnPending();
    const unreadable = { ...session.learner.learnedModel().model, version: 99 };
    const said = await restoreImportedModel(unreadable, session.doc, session.doc, { taughtClasses: () => session.learner.taughtClasses(), adopt: (m, known) => session.learner.adoptModel(m, known) });
    expect(said).toMatch(/^The dataset's learned model was not restored: /);
    expect(session.learner.taughtClasses()).toEqual(['green']);
  });
});
