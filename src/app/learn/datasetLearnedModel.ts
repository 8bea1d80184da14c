/**
 * The learned model in and out of datasets (issue 37, item 6). An export carries the session's model
 * once a class is taught. An imported model takes the learner's place: it already holds the lessons
 * of the objects that came with it, and the session's own objects are taught into it again from the
 * document, so the session's labels are not lost (its mined background and calibration decisions
 * are: the notice says so).
 */
import { sessionDataset, type Dataset, type ExportOptions } from '../../annotations/formats/dataset';
import type { LearnedClassesState } from '../../engine/learn/learnedClasses';
import type { StudioDocument } from '../state/model';
import { documentLessons } from './lessons';

/** The session's dataset for an export, with the learned model when one is taught (`taughtModel`). */
export function datasetWithLearnedModel(doc: StudioDocument, options: ExportOptions, learnedModel: LearnedClassesState | undefined): Dataset {
  const dataset = sessionDataset(doc, options);
  return learnedModel ? { ...dataset, learnedModel } : dataset;
}

export interface ImportedModelPorts {
  /** The classes the session's learner has examples of before the import. */
  taughtClasses(): readonly string[];
  adopt(model: LearnedClassesState, known: ReadonlyMap<string, string>): Promise<void>;
}

type Objects = Pick<StudioDocument, 'images' | 'objects' | 'classes'>;

/** The lessons of the objects the import added (in `after`, not in `before`): the imported model holds them. */
export function importedLessons(before: Pick<StudioDocument, 'objects'>, after: Objects): Map<string, string> {
  const present = new Set(Object.values(before.objects).flatMap((list) => list.map((o) => o.id)));
  return documentLessons(after, (id) => !present.has(id));
}

const listed = (names: readonly string[]) => names.join(', ');

/** Restores a dataset's model into the session; the sentence for the import report. */
export async function restoreImportedModel(model: LearnedClassesState, before: Pick<StudioDocument, 'objects'>, after: Objects, ports: ImportedModelPorts): Promise<string> {
  const had = ports.taughtClasses();
  const known = importedLessons(before, after);
  try {
    await ports.adopt(model, known);
  } catch (error) {
    return `The dataset's learned model was not restored: ${error instanceof Error ? error.message : String(error)}.`;
  }
  const classes = model.classes.filter((c) => c !== '');
  const restored = `The dataset's learned model (${listed(classes)}) was restored.`;
  if (had.length === 0) return restored;
  const own = documentLessons(after).size - known.size;
  return `${restored} It replaced this session's (${listed(had)}); this session's ${own} labelled object${own === 1 ? ' is' : 's are'} taught into it again (its background examples and review statistics are not kept).`;
}
