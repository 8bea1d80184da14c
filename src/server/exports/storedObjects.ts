/**
 * What a project worker thread reads for an export with a database connection of its own: images'
 * stored objects (the JSON text of their `objects` column) and the project's learned model. The
 * main thread never reads, holds or copies those megabytes, so its event loop keeps answering
 * meanwhile.
 */
import SQLite from 'better-sqlite3';
import pg from 'pg';
import type { DbLocation } from '../db/connect';

/** One query in each dialect's spelling: SQL text and its parameters. */
interface Query {
  sqlite: { sql: string; params: unknown[] };
  postgres: { sql: string; params: unknown[] };
}

/** Runs the queries on one connection opened for them (SQLite read-only) and returns each one's rows. */
async function readRows(location: DbLocation, queries: readonly Query[]): Promise<unknown[][]> {
  if (location.dialect === 'sqlite') {
    const db = new SQLite(location.file, { readonly: true, fileMustExist: true });
    try {
      db.pragma('busy_timeout = 5000');
      return queries.map(({ sqlite }) => db.prepare(sqlite.sql).all(...sqlite.params));
    } finally {
      db.close();
    }
  }
  const client = new pg.Client({ connectionString: location.url, ...(location.schema ? { options: `-c search_path=${location.schema}` } : {}) });
  await client.connect();
  try {
    const rows: unknown[][] = [];
    for (const { postgres } of queries) rows.push((await client.query(postgres.sql, postgres.params)).rows);
    return rows;
  } finally {
    await client.end();
  }
}

const objectsQuery = (projectId: string, imageIds: readonly string[]): Query => ({
  // SQLite takes the ids as JSON text, PostgreSQL as an array.
  sqlite: { sql: 'select id, objects from project_images where project_id = ? and id in (select value from json_each(?))', params: [projectId, JSON.stringify(imageIds)] },
  postgres: { sql: 'select id, objects from project_images where project_id = $1 and id = any($2::text[])', params: [projectId, imageIds] },
});

const learnedModelQuery = (projectId: string): Query => ({
  sqlite: { sql: 'select model from learned_models where project_id = ?', params: [projectId] },
  postgres: { sql: 'select model from learned_models where project_id = $1', params: [projectId] },
});

const objectsByImage = (rows: unknown[]) => new Map((rows as Array<{ id: string; objects: string }>).map((row) => [row.id, row.objects]));

export interface StoredExportSource {
  /** The `objects` of those images of the project, by image id; an image deleted meanwhile is absent. */
  objects: Map<string, string>;
  /** The project's learned model as stored (JSON text), or undefined when it has none. */
  learnedModelJson: string | undefined;
}

/** What an export writes beyond what the caller may see: the images' objects and the learned model, on one connection. */
export async function readExportSource(location: DbLocation, projectId: string, imageIds: readonly string[]): Promise<StoredExportSource> {
  const [objectRows, modelRows] = await readRows(location, [objectsQuery(projectId, imageIds), learnedModelQuery(projectId)]);
  return { objects: objectsByImage(objectRows!), learnedModelJson: (modelRows as Array<{ model: string }>)[0]?.model };
}
