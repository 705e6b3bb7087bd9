import { Injectable } from '@nestjs/common';
import type Database from 'better-sqlite3';
import type { DomainEvent } from '../../platform/events/envelope';
import { eventTypes, type Recorded } from '../../platform/events/event-type-registry';
import type { Projection } from '../../platform/projections/projection';
import { cachedStatement } from '../../platform/projections/statement-cache';
import { indexSubjectsOf } from '../application/audit-subjects';

/**
 * The audit trail's index: one row (subject, position) per account and app an event names (`h<hubId>`,
 * `a<appId>`; accountAndAppSubjects decides, as the page's filter does) and for its stream, type and correlation
 * id (`s:`, `t:`, `c:`), so every filter the page offers, alone or combined, is an intersection of
 * these rows (AuditIndex) and a page reads only the positions that match, then those events from the
 * store (readAt). Version 2 added stream, type and correlation id (a rebuild files the history).
 * Every registered event type is handled; as an index into the live history it keeps nothing from
 * the archiver (allowsArchiving): an archived event's row points at nothing and is left out.
 */
@Injectable()
export class AuditIndexProjection implements Projection {
  readonly name = 'console-audit-index';
  readonly version = 2;
  readonly allowsArchiving = true;

  /** Every type the modules registered (they all are by the time the runner starts). */
  get handles(): readonly DomainEvent['type'][] {
    return eventTypes.types();
  }

  setup(db: Database.Database): void {
    db.exec(`
      CREATE TABLE IF NOT EXISTS console_audit_index (
        subject  TEXT    NOT NULL,
        position INTEGER NOT NULL,
        PRIMARY KEY (subject, position)
      ) WITHOUT ROWID;
    `);
  }

  reset(db: Database.Database): void {
    db.exec('DELETE FROM console_audit_index;');
  }

  apply(e: Recorded<DomainEvent>, db: Database.Database): void {
    const subjects = indexSubjectsOf(e);
    // One statement per event (its four or five rows): a fifth cheaper than one per row.
    const insert = cachedStatement(db, insertSql(subjects.length));
    const values: Array<string | number> = [];
    for (const subject of subjects) values.push(subject, e.position);
    insert.run(values);
  }
}

/** The insert of `rows` subjects, its text made once per count. */
const insertSqls: string[] = [];
function insertSql(rows: number): string {
  return (insertSqls[rows] ??=
    `INSERT OR IGNORE INTO console_audit_index (subject, position) VALUES ${Array.from({ length: rows }, () => '(?, ?)').join(', ')}`);
}
