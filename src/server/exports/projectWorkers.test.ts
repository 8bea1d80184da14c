/** The project work pool's threads, started for real (tsx, the format writers) on a real SQLite file. */
import { readdirSync, readFileSync } from 'node:fs';
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

/** The niceness of one of this process's threads (Linux: /proc/self/task/<tid>/stat, field 19). */
const niceness = (tid: string | number) => Number(readFileSync(`/proc/self/task/${tid}/stat`, 'utf8').split(') ')[1].split(' ')[16]);
const threadNiceness = () => readdirSync('/proc/self/task').map(niceness);

it.runIf(process.platform === 'linux')('runs its thread at a lower CPU priority than the event loop, which keeps its own', async () => {
  const before = threadNiceness();
  const eventLoop = niceness(process.pid);
  const workers = new ProjectWorkers({ spareIdleMs: 60_000 });
  try {
    await workers.export({ project: emptyProject, images: [], database: db().location }, 'coco');
    const after = threadNiceness();
    expect(after.filter((nice) => nice === 10).length).toBe(before.filter((nice) => nice === 10).length + 1);
    expect(niceness(process.pid)).toBe(eventLoop);
  } finally {
    await workers.close();
  }
}, 120_000);
