import { Inject, Injectable } from '@nestjs/common';
import { EVENT_STORE, type EventStore } from '../../platform/event-store/event-store.port';
import type { RecordedEvent } from '../../platform/events/envelope';
import { auditView } from '../../platform/events/credential-hashes';
import { consoleErrors } from '../domain/console-errors';

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
}

export const AUDIT_PAGE_SIZE = 50;
/** Events read per backwards step when a filter the store cannot index (account, app, correlation) is set. */
const SCAN_BATCH = 1000;
/** At most this many events are read for one page: a page's cost is bounded whatever the history holds. */
export const SCAN_BUDGET = 5_000;

const numberIn = (data: Record<string, unknown>, keys: readonly string[], wanted: number) =>
  keys.some((k) => data[k] === wanted || data[k] === String(wanted));

/** Whether an event concerns the account, app and correlation asked for (by its data's ids). */
export function matches(event: RecordedEvent, f: AuditFilter): boolean {
  const data = typeof event.data === 'object' && event.data !== null ? (event.data as Record<string, unknown>) : {};
  if (f.correlationId !== undefined && event.metadata.correlationId !== f.correlationId) return false;
  if (
    f.hubId !== undefined &&
    !numberIn(data, ['hubId', 'portalId', 'developerHubId'], f.hubId) &&
    !(Array.isArray(data.hubIds) && data.hubIds.includes(f.hubId))
  ) {
    return false;
  }
  if (f.appId !== undefined && !numberIn(data, ['appId'], f.appId)) return false;
  return true;
}

/**
 * The audit trail newest first, a page at a time by global position (keyset: `before`, never an
 * offset). Stream and type go to the store's indexes; account, app and correlation id are matched on
 * the events read, at most SCAN_BUDGET of them per page. Events as the events API and audit:export
 * show them (auditView).
 */
@Injectable()
export class AuditTrail {
  constructor(@Inject(EVENT_STORE) private readonly store: EventStore) {}

  async page(filter: AuditFilter, before = Number.MAX_SAFE_INTEGER, size = AUDIT_PAGE_SIZE): Promise<AuditPage> {
    const readBackward = this.store.readBackward?.bind(this.store);
    if (!readBackward) throw consoleErrors.backwardsReadUnsupported();
    const indexed = {
      ...(filter.stream ? { streamId: filter.stream } : {}),
      ...(filter.type ? { type: filter.type } : {}),
    };
    const scanning = filter.hubId !== undefined || filter.appId !== undefined || filter.correlationId !== undefined;
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
