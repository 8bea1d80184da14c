/**
 * The hook-up of ProjectLearnedSync: while a server project is open, the session's learner follows
 * its learned model. The live stream's `learned` event calls `reloadLearnedModel()`.
 */
import { browserProjectApi } from '../projects/projectSession';
import { useOpenProject } from '../projects/projectStore';
import { useUi } from '../state/uiStore';
import { adoptLearnedModel, lessonsOfDocument, sessionLearner, taughtModel, useLearnedClasses } from './learnerServices';
import { ProjectLearnedSync } from './projectLearnedSync';

let current: ProjectLearnedSync | null = null;

const notice = (message: string) => useUi.getState().setNotice(message);
const failed = (error: unknown) => notice(`The project's learned model could not be loaded or saved: ${error instanceof Error ? error.message : String(error)}`);

/** Reads the open project's learned model again (another member changed it); what this browser taught since is kept. */
export function reloadLearnedModel(): Promise<void> {
  return current ? current.reload().catch(failed) : Promise.resolve();
}

useOpenProject.subscribe((now, before) => {
  if (now.learnedRevision !== null && now.learnedRevision !== before.learnedRevision && now.open?.id === before.open?.id) void reloadLearnedModel();
  const id = now.open?.id ?? null;
  if (id === (before.open?.id ?? null)) return;
  current?.stop();
  current = null;
  if (!id) return;
  current = new ProjectLearnedSync({
    api: browserProjectApi(),
    projectId: id,
    model: taughtModel,
    taughtLessons: () => sessionLearner.taughtLessons(),
    documentLessons: () => lessonsOfDocument(),
    adopt: adoptLearnedModel,
    learnPending: () => sessionLearner.learnPending(),
    notice,
  });
  void current.open().catch(failed);
});

useLearnedClasses.subscribe((now, before) => {
  if (now.revision !== before.revision) current?.changed();
});
