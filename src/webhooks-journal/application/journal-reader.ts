import { Injectable } from '@nestjs/common';
import { InstallClocks } from '../../platform/clock';
import { JOURNAL_RETENTION_MS } from '../domain/journal-entries';
import { noJournalEntries, offsetNotFound } from '../domain/journal-errors';
import { JournalFileUrls } from './journal-file-urls';
import { type EntryRow, JournalQueries } from './journal.queries';

/** HubSpot's JournalFetchResponse, before its times are written as ISO strings. */
export interface JournalFetch {
  url: string;
  currentOffset: string;
  expiresAt: number;
}

/** Which journal a read is of: the app's, across its installs, or one account's (the local journal). */
export interface JournalScope {
  appId: number;
  hubId: number | null;
}

/**
 * The journal's reads: earliest, latest, next, by offset; entries older than 3 days on their
 * install's clock are gone (InstallClocks, so moving an install's clock expires them).
 */
@Injectable()
export class JournalReader {
  constructor(
    private readonly queries: JournalQueries,
    private readonly clocks: InstallClocks,
    private readonly urls: JournalFileUrls,
  ) {}

  visible(appId: number, entry: Pick<EntryRow, 'hubId' | 'occurredAt'>): boolean {
    return entry.occurredAt > this.clocks.nowFor(appId, entry.hubId) - JOURNAL_RETENTION_MS;
  }

  earliest(scope: JournalScope, count: number): JournalFetch[] {
    return this.take(scope, this.queries.entries(scope.appId, scope.hubId, {}), count);
  }

  /** The newest `count` entries, oldest first (as the journal orders them). */
  latest(scope: JournalScope, count: number): JournalFetch[] {
    return this.take(scope, this.queries.entries(scope.appId, scope.hubId, {}, true), count).reverse();
  }

  next(scope: JournalScope, offset: string, count: number): JournalFetch[] {
    const at = this.entryAt(scope, offset);
    return this.take(scope, this.queries.entries(scope.appId, scope.hubId, { after: at.position }), count);
  }

  one(read: JournalFetch[]): JournalFetch {
    if (read.length === 0) throw noJournalEntries();
    return read[0]!;
  }

  /** The entry after `offset`, or null when none follows yet (the offset itself must be kept). */
  nextOne(scope: JournalScope, offset: string): JournalFetch | null {
    return this.next(scope, offset, 1)[0] ?? null;
  }

  /** The entry at `offset` in this journal, still kept; else HubSpot's 404. */
  entryAt(scope: JournalScope, offset: string): EntryRow {
    const entry = this.queries.entry(scope.appId, offset);
    if (!entry || (scope.hubId !== null && entry.hubId !== scope.hubId) || !this.visible(scope.appId, entry)) {
      throw offsetNotFound(offset);
    }
    return entry;
  }

  fetchOf(appId: number, entry: EntryRow): JournalFetch {
    const { url, expiresAt } = this.urls.sign(appId, entry.offset);
    return { url, currentOffset: entry.offset, expiresAt };
  }

  private take(scope: JournalScope, rows: Generator<EntryRow>, count: number): JournalFetch[] {
    const out: JournalFetch[] = [];
    for (const row of rows) {
      if (!this.visible(scope.appId, row)) continue;
      out.push(this.fetchOf(scope.appId, row));
      if (out.length >= count) {
        rows.return(undefined);
        break;
      }
    }
    return out;
  }
}
