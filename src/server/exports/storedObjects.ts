/**
 * Images' stored objects (the JSON text of their `objects` column) read by a project worker thread
 * with a database connection of its own: for an export or a large write, the main thread never
 * reads, holds or copies those megabytes, so its event loop keeps answering meanwhile.
 */
import SQLite from 'better-sqlite3';
import pg from 'pg';
import type { DbLocation } from '../db/connect';

/** The `objects` of those images of the project, by image id; an image deleted meanwhile is absent. */
export async function readStoredObjects(location: DbLocation, projectId: string, imageIds: readonly string[]): Promise<Map<string, string>> {
  type Row = { id: string; objects: string };
  if (location.dialect === 'sqlite') {
    const db = new SQLite(location.file, { readonly: true, fileMustExist: true });
    try {
      db.pragma('busy_timeout = 5000');
      const rows = db.prepare('select id, objects from project_images where project_id = ? and id in (select value from json_each(?))').all(projectId, JSON.stringify(imageIds)) as Row[];
      return new Map(rows.map((row) => [row.id, row.objects]));
    } finally {
      db.close();
    }
  }
  const client = new pg.Client({ connectionString: location.url, ...(location.schema ? { options: `-c search_path=${location.schema}` } : {}) });
  await client.connect();
  try {
    const { rows } = await client.query<Row>('select id, objects from project_images where project_id = $1 and id = any($2::text[])', [projectId, imageIds]);
    return new Map(rows.map((row) => [row.id, row.objects]));
  } finally {
    await client.end();
  }
}
