import { Inject, Injectable } from '@nestjs/common';
import { EVENT_STORE, type EventStore } from '../../platform/event-store/event-store.port';
import { InvalidPositionError } from '../../platform/event-store/store-errors';
import type { RecordedEvent } from '../../platform/events/envelope';
import { auditView } from '../../platform/events/credential-hashes';
import { ProjectionRunner } from '../../platform/projections/projection-runner';
import { consoleErrors } from '../domain/console-errors';
import { AuditIndex } from './audit-index';
import { accountAndAppSubjects } from './audit-subjects';

export interface AuditFilter {
  hubId?: number;
  appId?: number;
  stream?: string;
  type?: string;
  correlationId?: string;
}

export interface AuditPage {
  events: RecordedEvent[];
  /** `before` for the next (older) page; null when the feed's start was reached. */
  older: number | null;
  /** True when the scan budget ran out before a page filled (older pages may still hold matches). */
  scanCut: boolean;
  /**
   * Where a live tail opened from this page starts (after it): the store's head before the page was
   * read, or the newest event shown when that is newer. Events committed after the render then reach
   * the tail, none twice.
   */
  followFrom: number;
}

export const AUDIT_PAGE_SIZE = 50;
/** Events read per backwards step when a filter must be matched on the events read (a store without readAt). */
const SCAN_BATCH = 1000;
/** At most this many events are read for one page: a page's cost is bounded whatever the history holds. */
export const SCAN_BUDGET = 5_000;
/**
 * Through the index only matching positions are read, each one lookup (a round trip on EventStoreDB);
 * more than a page only when the store no longer holds some (archived): at most this many per page.
 */
export const INDEXED_READ_BUDGET = 1_000;

/** Whether an event concerns the account, app and correlation asked for (by the ids its data or stream names; audit-subjects). */
export function matches(event: RecordedEvent, f: AuditFilter): boolean {
  if (f.correlationId !== undefined && event.metadata.correlationId !== f.correlationId) return false;
  if (f.hubId === undefined && f.appId === undefined) return true;
  const subjects = accountAndAppSubjects(event);
  if (f.hubId !== undefined && !subjects.includes(`h${f.hubId}`)) return false;
  if (f.appId !== undefined && !subjects.includes(`a${f.appId}`)) return false;
  return true;
}

const ofStreamAndType = (e: RecordedEvent, f: AuditFilter) =>
  (f.stream === undefined || e.streamId === f.stream) && (f.type === undefined || e.type === f.type);

/**
 * The audit trail newest first, a page at a time by global position (keyset: `before`, never an
 * offset). Unfiltered, or by stream and type on SQLite (its own indexes), the store reads the page
 * itself (`readBackward`); every other filter and combination (account, app, correlation id, type on
 * EventStoreDB) goes to the console's own index (AuditIndex over AuditIndexProjection), which answers
 * the positions matching all of it, and only those events are read from the store (`readAt`). A store
 * without `readAt` is scanned instead, bounded by a scan budget per page. Events as the events API and
 * audit:export show them (auditView).
 */
@Injectable()
export class AuditTrail {
  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    private readonly index: AuditIndex,
    private readonly runner: ProjectionRunner,
  ) {}

  async page(filter: AuditFilter, before = Number.MAX_SAFE_INTEGER, size = AUDIT_PAGE_SIZE): Promise<AuditPage> {
    try {
      const head = await this.store.headPosition();
      const page = await this.filteredPage(filter, before, size, head);
      return { ...page, followFrom: Math.max(head, page.events[0]?.position ?? 0) };
    } catch (error) {
      // A `before` this store never issued (EventStoreDB positions are not every number).
      if (error instanceof InvalidPositionError)
        throw consoleErrors.badInput('before is not a position of this store.');
      throw error;
    }
  }

  private async filteredPage(
    filter: AuditFilter,
    before: number,
    size: number,
    head: number,
  ): Promise<Omit<AuditPage, 'followFrom'>> {
    const storeAnswers =
      filter.hubId === undefined &&
      filter.appId === undefined &&
      filter.correlationId === undefined &&
      (filter.type === undefined || this.store.kind === 'sqlite');
    if (!storeAnswers && this.store.readAt) return this.indexedPage(filter, before, size, head);
    return this.scannedPage(filter, before, size);
  }

  /** The index's matching positions, newest first, then those events from the store. */
  private async indexedPage(
    filter: AuditFilter,
    before: number,
    size: number,
    head: number,
  ): Promise<Omit<AuditPage, 'followFrom'>> {
    // The newest events are indexed by the time the page reads (a bounded wait; a page never fails on it).
    await this.runner.readModelsReached(head);
    const found: RecordedEvent[] = [];
    let cursor = before;
    let read = 0;
    for (;;) {
      // One more than the page: it says whether an older page exists.
      const wanted = Math.min(size + 1 - found.length, INDEXED_READ_BUDGET - read);
      const { positions, cutAt } = this.index.matching(filter, cursor, wanted);
      read += positions.length;
      for (const event of await this.store.readAt!(positions)) {
        // The index filed it under the filter's subjects; matched again on the event as a page shows it.
        if (!ofStreamAndType(event, filter)) continue;
        const view = auditView(event);
        if (!matches(view, filter)) continue;
        if (found.length === size) return { events: found, older: found.at(-1)!.position, scanCut: false };
        found.push(view);
      }
      if (cutAt !== null) return { events: found, older: cutAt, scanCut: true };
      if (positions.length < wanted) return { events: found, older: null, scanCut: false };
      cursor = positions.at(-1)!;
      // Positions the store no longer holds (archived) were left out: read on, within the budget.
      if (read >= INDEXED_READ_BUDGET) return { events: found, older: cursor, scanCut: true };
    }
  }

  private async scannedPage(filter: AuditFilter, before: number, size: number): Promise<Omit<AuditPage, 'followFrom'>> {
    const readBackward = this.store.readBackward?.bind(this.store);
    if (!readBackward) throw consoleErrors.backwardsReadUnsupported();
    // SQLite indexes the type; EventStoreDB would walk $all for a rare one: matched here, within the budget.
    const storeType = this.store.kind === 'sqlite' ? filter.type : undefined;
    const indexed = {
      ...(filter.stream ? { streamId: filter.stream } : {}),
      ...(storeType ? { type: storeType } : {}),
    };
    const scanning =
      filter.hubId !== undefined ||
      filter.appId !== undefined ||
      filter.correlationId !== undefined ||
      (filter.type !== undefined && storeType === undefined);
    if (!scanning) {
      const rows = await readBackward({ before, limit: size + 1, ...indexed });
      const events = rows.slice(0, size);
      return {
        events: events.map(auditView),
        older: rows.length > size ? events.at(-1)!.position : null,
        scanCut: false,
      };
    }
    const found: RecordedEvent[] = [];
    let cursor = before;
    let scanned = 0;
    while (scanned < SCAN_BUDGET) {
      const batch = await readBackward({
        before: cursor,
        limit: Math.min(SCAN_BATCH, SCAN_BUDGET - scanned),
        ...indexed,
      });
      if (batch.length === 0) return { events: found, older: null, scanCut: false };
      scanned += batch.length;
      for (const event of batch) {
        if (!ofStreamAndType(event, filter)) continue;
        const view = auditView(event);
        if (!matches(view, filter)) continue;
        if (found.length === size) return { events: found, older: found.at(-1)!.position, scanCut: false };
        found.push(view);
      }
      cursor = batch.at(-1)!.position;
    }
    return { events: found, older: cursor, scanCut: true };
  }
}
