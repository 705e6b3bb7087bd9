import { Inject, Injectable } from '@nestjs/common';
import type Database from 'better-sqlite3';
import { READ_MODEL_DB } from '../../platform/projections/read-model-database';
import { cachedStatement } from '../../platform/projections/statement-cache';

/** Reads of the audit index (AuditIndexProjection): positions of an account's or app's events, newest first. */
@Injectable()
export class AuditIndex {
  constructor(@Inject(READ_MODEL_DB) private readonly db: Database.Database) {}

  /** At most `limit` positions before `before` of events naming the account and/or the app (both: the events naming both). */
  positions(filter: { hubId?: number; appId?: number }, before: number, limit: number): number[] {
    const subjects = [
      ...(filter.hubId !== undefined ? [`h${filter.hubId}`] : []),
      ...(filter.appId !== undefined ? [`a${filter.appId}`] : []),
    ];
    if (subjects.length === 0) throw new RangeError('an account or an app');
    const rows =
      subjects.length === 1
        ? cachedStatement(
            this.db,
            'SELECT position FROM console_audit_index WHERE subject = ? AND position < ? ORDER BY position DESC LIMIT ?',
          ).all(subjects[0], before, limit)
        : cachedStatement(
            this.db,
            `SELECT h.position FROM console_audit_index h
             JOIN console_audit_index a ON a.subject = ? AND a.position = h.position
             WHERE h.subject = ? AND h.position < ? ORDER BY h.position DESC LIMIT ?`,
          ).all(subjects[1], subjects[0], before, limit);
    return (rows as { position: number }[]).map((r) => r.position);
  }
}
