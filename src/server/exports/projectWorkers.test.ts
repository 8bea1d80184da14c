/** The project work pool's threads, started for real (tsx, the format writers) on a real SQLite file. */
import { expect, it } from 'vitest';
import { useTempSqlite } from '../../../test/support/tempSqlite';
import { ProjectWorkers } from './projectWorkers';

const db = useTempSqlite('mw-project-workers-');

const emptyProject = { id: 'prj_empty', name: 'Empty', owner: 'a@example.test', role: 'owner' as const, classes: [], imageCount: 0, createdAt: new Date(0).toISOString(), updatedAt: new Date(0).toISOString() };

it('keeps the thread that answered for the next job, and ends it once no job came for spareIdleMs', async () => {
  const workers = new ProjectWorkers({ spareIdleMs: 500 });
  try {
    const file = await workers.export({ project: emptyProject, images: [], database: db().location }, 'coco');
    expect(file.fileName).toBe('Empty.coco.json');
    expect(workers.idleThreads).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(workers.idleThreads).toBe(0);
    // The next job starts a thread again.
    expect((await workers.export({ project: emptyProject, images: [], database: db().location }, 'coco')).fileName).toBe('Empty.coco.json');
  } finally {
    await workers.close();
  }
}, 120_000);
