import { Inject, Injectable } from '@nestjs/common';
import type Database from 'better-sqlite3';
import { READ_MODEL_DB } from '../../platform/projections/read-model-database';
import { cachedStatement } from '../../platform/projections/statement-cache';
import { filterSubjects, type IndexedFilter } from './audit-subjects';

/** The positions an index read found, newest first; `cutAt` set when it stopped at its budget (continue before it). */
export interface IndexRead {
  positions: number[];
  cutAt: number | null;
}

/** A subject with fewer rows than this (before the page's start) is counted exactly, and drives the intersection. */
const SMALL_SUBJECT = 1_000;
/** Rows of the driving subject examined per statement when every subject is large. */
const WINDOW = 5_000;
/** At most this many rows of the driving subject are examined for one page (index-only, about 1 µs each). */
export const INDEX_PROBE_BUDGET = 50_000;

/**
 * Reads of the audit index (AuditIndexProjection): positions of the events filed under every subject
 * a filter names (account, app, stream, type, correlation id), newest first. Several subjects are
 * intersected in SQL: the one with the fewest rows before the page's start (counted up to
 * SMALL_SUBJECT) is walked downwards and each of its positions probed in the others by primary key,
 * so a filter that matches nothing (a correlation id none of the account's events has) costs a few
 * index reads, not a read of each event. Only when every subject is large and they rarely meet does
 * a page stop at INDEX_PROBE_BUDGET rows and say where to continue.
 */
@Injectable()
export class AuditIndex {
  constructor(@Inject(READ_MODEL_DB) private readonly db: Database.Database) {}

  /** At most `limit` positions before `before` of events matching every subject of the filter (at least one). */
  matching(filter: IndexedFilter, before: number, limit: number): IndexRead {
    const subjects = filterSubjects(filter);
    if (subjects.length === 0) throw new RangeError('a filter the index answers');
    if (subjects.length === 1) return { positions: this.newest(subjects[0]!, before, limit), cutAt: null };
    const counted = subjects.map((subject) => ({ subject, rows: this.rowsUpTo(subject, before, SMALL_SUBJECT) }));
    counted.sort((a, b) => a.rows - b.rows);
    const [driver, ...probed] = counted.map((c) => c.subject);
    if (counted[0]!.rows === 0) return { positions: [], cutAt: null };
    const probes = probed.map(
      () => 'AND EXISTS (SELECT 1 FROM console_audit_index o WHERE o.subject = ? AND o.position = d.position)',
    );
    const intersect = cachedStatement(
      this.db,
      `SELECT d.position FROM console_audit_index d
       WHERE d.subject = ? AND d.position < ? AND d.position >= ? ${probes.join(' ')}
       ORDER BY d.position DESC LIMIT ?`,
    );
    const found: number[] = [];
    let cursor = before;
    let examined = 0;
    while (found.length < limit) {
      if (examined >= INDEX_PROBE_BUDGET) return { positions: found, cutAt: cursor };
      // The window: the driver's next WINDOW rows (or all it has left, when fewer).
      const window = this.windowFloor(driver!, cursor, WINDOW);
      if (window === null) break;
      const rows = intersect.all(driver, cursor, window.floor, ...probed, limit - found.length) as {
        position: number;
      }[];
      for (const r of rows) found.push(r.position);
      if (window.rows < WINDOW) break; // the driver has no rows below this window
      examined += window.rows;
      cursor = window.floor;
    }
    return { positions: found, cutAt: null };
  }

  private newest(subject: string, before: number, limit: number): number[] {
    const rows = cachedStatement(
      this.db,
      'SELECT position FROM console_audit_index WHERE subject = ? AND position < ? ORDER BY position DESC LIMIT ?',
    ).all(subject, before, limit) as { position: number }[];
    return rows.map((r) => r.position);
  }

  /** How many rows the subject has before `before`, counted up to `cap`. */
  private rowsUpTo(subject: string, before: number, cap: number): number {
    const row = cachedStatement(
      this.db,
      `SELECT COUNT(*) AS n FROM (SELECT 1 FROM console_audit_index
       WHERE subject = ? AND position < ? ORDER BY position DESC LIMIT ?)`,
    ).get(subject, before, cap) as { n: number };
    return row.n;
  }

  /** The lowest of the subject's next `size` positions below `before`, and how many there are; null when none. */
  private windowFloor(subject: string, before: number, size: number): { floor: number; rows: number } | null {
    const row = cachedStatement(
      this.db,
      `SELECT MIN(position) AS floor, COUNT(*) AS rows FROM (SELECT position FROM console_audit_index
       WHERE subject = ? AND position < ? ORDER BY position DESC LIMIT ?)`,
    ).get(subject, before, size) as { floor: number | null; rows: number };
    return row.floor === null ? null : { floor: row.floor, rows: row.rows };
  }
}
