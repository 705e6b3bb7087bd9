import type Database from 'better-sqlite3';
import type { SearchJob } from './search-compiler';

export interface SearchRows {
  total: number;
  rows: Array<{ id: number; created_at: number; updated_at: number }>;
  values: Array<{ id: number; property: string; value: string }>;
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
