import type Database from 'better-sqlite3';
import type { ResultShape, SearchJob } from './search-compiler';

export interface SearchRows {
  total: number;
  rows: Array<{ id: number; created_at: number; updated_at: number }>;
  values: Array<{ id: number; property: string; value: string }>;
}

/** A page as the search thread hands it over: the results already shaped and serialized. */
export interface SearchPage {
  total: number;
  /** How many results `results` holds. */
  count: number;
  /** The page's SimplePublicObjects as JSON text (an array), sent as they are. */
  results: string;
}

/** Which page plan to run: chosen on the total (`auto`), or one of them (the tests hold both to the same answer). */
export type PagePlan = 'auto' | 'walk' | 'sort';

/**
 * Runs a compiled search on a read-model connection, in one read transaction: the total, the page,
 * the page's values. Self-contained (no imports at run time): its source text is also the search
 * worker's (search-executor.ts), as the event store's writer thread is built from its function's text.
 *
 * The page's plan, from the total: walking an ordered index visits about `(after + limit) × docs /
 * total` rows (matches spread evenly), sorting the matches visits `total` (and sorts them); the walk
 * is taken when it visits fewer, and always when it reads only matches (`exact`). No page is read past
 * the total. A walk of the records with the sort value (not `complete`) that comes back short leaves
 * the page to the sorting plan.
 */
export function runSearchJob(db: Database.Database, job: SearchJob, plan: PagePlan = 'auto'): SearchRows {
  const cache = ((db as unknown as { __searchStatements?: Map<string, Database.Statement> }).__searchStatements ??=
    new Map<string, Database.Statement>());
  const prepared = (sql: string): Database.Statement => {
    let statement = cache.get(sql);
    if (!statement) {
      statement = db.prepare(sql);
      cache.set(sql, statement);
      if (cache.size > 500) cache.delete(cache.keys().next().value as string);
    }
    return statement;
  };
  const read = db.transaction((j: SearchJob): SearchRows => {
    const total = Number((prepared(j.total.sql).get(...j.total.params) as { total: number }).total);
    const { after, limit } = j.window;
    if (after >= total) return { total, rows: [], values: [] };
    let rows: SearchRows['rows'] | undefined;
    const walk = j.walk;
    if (walk && plan !== 'sort') {
      const docs =
        plan === 'walk' || walk.exact
          ? 0
          : Number((prepared(j.docs.sql).get(...j.docs.params) as { docs: number }).docs);
      if (plan === 'walk' || walk.exact || (after + limit) * docs <= total * total) {
        const walked = prepared(walk.sql).all(...walk.params) as SearchRows['rows'];
        if (walk.complete || walked.length === Math.min(limit, total - after)) rows = walked;
      }
    }
    rows ??= prepared(j.page.sql).all(...j.page.params) as SearchRows['rows'];
    if (rows.length === 0) return { total, rows, values: [] };
    const ids = rows.map((r) => r.id);
    const sql = j.values.sql.replace('/*IDS*/', ids.map(() => '?').join(', '));
    const values = prepared(sql).all(...j.values.params, ...ids) as SearchRows['values'];
    return { total, rows, values };
  });
  return read(job);
}

/**
 * Runs a compiled search and shapes its page, on the search thread: the main thread receives one
 * string to send instead of cloning, shaping and serializing hundreds of small objects (its share
 * of a search was mostly that). Self-contained like runSearchJob (its text is the worker's too).
 */
export function answerSearchJob(db: Database.Database, job: SearchJob, plan: PagePlan = 'auto'): SearchPage {
  const found = runSearchJob(db, job, plan);
  return { total: found.total, count: found.rows.length, results: shapeSearchResults(found, job.shape) };
}

/**
 * The page's records as HubSpot's search answers them, as JSON text: each shown property in order,
 * the system values (`hs_object_id`, the create and last-modified dates) from the record itself,
 * null for a property without a value. Self-contained (the search thread's source holds its text).
 */
export function shapeSearchResults(found: SearchRows, shape: ResultShape): string {
  const byRecord = new Map<number, Map<string, string>>();
  for (const v of found.values) {
    let own = byRecord.get(v.id);
    if (!own) byRecord.set(v.id, (own = new Map<string, string>()));
    own.set(v.property, v.value);
  }
  const results = found.rows.map((row) => {
    const own = byRecord.get(row.id);
    const createdAt = new Date(row.created_at).toISOString();
    const updatedAt = new Date(row.updated_at).toISOString();
    const properties: Record<string, string | null> = {};
    for (const name of shape.shown) {
      properties[name] =
        name === 'hs_object_id'
          ? String(row.id)
          : name === shape.created
            ? createdAt
            : name === shape.modified
              ? updatedAt
              : (own?.get(name) ?? null);
    }
    return { id: String(row.id), properties, createdAt, updatedAt, archived: false };
  });
  return JSON.stringify(results);
}
