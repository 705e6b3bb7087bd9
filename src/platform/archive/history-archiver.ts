import type { RecordedEvent } from '../events/envelope';
import { eventTypes } from '../events/event-type-registry';
import type { ArchivedEventRef, EventStore } from '../event-store/event-store.port';
import { ArchiveFiles, type ArchiveCrashPoint } from './archive-files';
import { archiveFileName, segmentKey, type ArchiveSegment } from './archive-manifest';
import type { RetentionRules } from './retention-rules';

const DAY_MS = 86_400_000;
/** Events read per page of the scan: small, since the reads block the event loop until the next yield. */
const PAGE = 200;

/** A segment as recorded by ops.HistoryArchived. */
export interface ArchivedBatch {
  file: string;
  segment: ArchiveSegment;
  /** The segment's events, to delete from the live store in the recording transaction. */
  purge: ArchivedEventRef[];
  /** Each archived stream with its last archived revision (EventStoreDB truncates them there). */
  streams: Array<{ streamId: string; lastRevision: number }>;
}

export interface HistoryArchiverOptions {
  store: Pick<EventStore, 'readAll' | 'headPosition'>;
  files: ArchiveFiles;
  rules: RetentionRules;
  retentionDays: number;
  batchEvents: number;
  now(): number;
  /** The feed position every projection and reactor has applied: nothing past it is archived. */
  appliedPosition(): number;
  /** Types some read model or reactor applies: a stream holding one stays live (rebuilds stay exact). */
  handledTypes(): ReadonlySet<string>;
  /** Segment keys already recorded by ops.HistoryArchived. */
  recordedSegments(): Promise<ReadonlySet<string>>;
  /** Appends ops.HistoryArchived and removes the batch's events (the store's retention: see EventStore). */
  record(batch: ArchivedBatch): Promise<void>;
  /** Test hook: called after each durable step of a batch (kill -9 tests exit there). */
  crashPoint?: (step: ArchiveCrashPoint) => void;
}

export interface BatchOutcome {
  archived: number;
  /** True when the scan reached the retention window or the read models' position: nothing more to do now. */
  caughtUp: boolean;
}

/**
 * Moves ended streams older than the retention window from the live store to the archive, a
 * batch at a time: select whole streams (oldest first), append them as a segment of the archive
 * file, name it in the manifest, then record ops.HistoryArchived and delete the events in one
 * store transaction. A crash leaves every event live, or in a verified segment, or both; `reconcile`
 * (run before the first batch) finishes what a crash interrupted, so each ends up in one place.
 */
export class HistoryArchiver {
  /** Positions up to here were scanned and what could go went: the next scan starts after it. */
  private scanned = 0;
  private reconciled = false;

  constructor(private readonly o: HistoryArchiverOptions) {}

  get enabled(): boolean {
    return this.o.retentionDays > 0 && this.o.rules.size > 0;
  }

  /**
   * Finishes interrupted batches: unnamed bytes and files go; a segment in the manifest that no
   * ops.HistoryArchived records is verified, then recorded and its events deleted (those still live).
   */
  async reconcile(): Promise<string[]> {
    const done = this.o.files.reconcile();
    const recorded = await this.o.recordedSegments();
    for (const [file, entry] of Object.entries(this.o.files.manifest().files)) {
      for (const segment of entry.segments) {
        if (recorded.has(segmentKey(file, segment.offset))) continue;
        const events = this.o.files.readSegment(file, segment); // throws when the bytes are not what the manifest says
        await this.o.record(batchOf(file, segment, events));
        done.push(`recorded ${segmentKey(file, segment.offset)} (${segment.count} events)`);
      }
    }
    this.reconciled = true;
    return done;
  }

  /** One batch; reconciles first if that was not done yet. */
  async runBatch(): Promise<BatchOutcome> {
    if (!this.enabled) return { archived: 0, caughtUp: true };
    if (!this.reconciled) await this.reconcile();
    const cutoff = this.o.now() - this.o.retentionDays * DAY_MS;
    const upTo = Math.min(this.o.appliedPosition(), await this.o.store.headPosition());
    const handled = this.o.handledTypes();
    const chosen: RecordedEvent[] = [];
    const seen = new Set<string>();
    let after = this.scanned;
    /** First position of a stream that is not archivable yet: later scans must look at it again. */
    let blockedAt: number | null = null;
    let caughtUp = false;
    scan: while (chosen.length < this.o.batchEvents) {
      // The reads are synchronous on SQLite: between pages, requests waiting for the loop go first.
      if (after !== this.scanned) await new Promise((resolve) => setImmediate(resolve));
      const page = await this.o.store.readAll({ after, limit: PAGE });
      if (page.length === 0) {
        caughtUp = true;
        break;
      }
      for (const e of page) {
        if (e.position > upTo || e.metadata.occurredAt >= cutoff) {
          caughtUp = true;
          break scan;
        }
        after = e.position;
        const rule = this.o.rules.of(e.streamId);
        if (!rule || seen.has(e.streamId)) continue;
        seen.add(e.streamId);
        const stream = await this.o.store.readAll({ after: 0, limit: 10_000, streamId: e.streamId });
        // Truncated already (EventStoreDB: `$all` shows archived events until the operator scavenges).
        if (stream.length === 0) continue;
        // A stream a read model applies stays live: a rebuild from the live store must equal the read model.
        if (stream.some((s) => handled.has(s.type))) continue;
        // Rules read the domain shape; the archive keeps the stored one.
        const endedAt = rule.endedAt(stream.map((s) => (eventTypes.has(s.type) ? eventTypes.decode(s) : s)));
        const ready =
          endedAt !== null &&
          endedAt < cutoff &&
          stream.every((s) => s.position <= upTo && s.metadata.occurredAt < cutoff);
        if (!ready) {
          blockedAt ??= e.position;
          continue;
        }
        chosen.push(...stream);
        if (chosen.length >= this.o.batchEvents) break;
      }
    }
    this.scanned = blockedAt !== null ? Math.min(after, blockedAt - 1) : after;
    if (chosen.length === 0) return { archived: 0, caughtUp };
    chosen.sort((a, b) => a.position - b.position);
    const file = archiveFileName(chosen[0]!.metadata.occurredAt);
    const segment = this.o.files.appendSegment(file, chosen, this.o.crashPoint);
    await this.o.record(batchOf(file, segment, chosen));
    this.o.crashPoint?.('recorded');
    return { archived: chosen.length, caughtUp };
  }
}

function batchOf(file: string, segment: ArchiveSegment, events: readonly RecordedEvent[]): ArchivedBatch {
  const last = new Map<string, number>();
  for (const e of events) last.set(e.streamId, Math.max(last.get(e.streamId) ?? -1, e.revision));
  return {
    file,
    segment,
    purge: events.map(ref),
    streams: [...last].map(([streamId, lastRevision]) => ({ streamId, lastRevision })),
  };
}

const ref = (e: RecordedEvent): ArchivedEventRef => ({
  position: e.position,
  eventId: e.metadata.eventId,
  streamId: e.streamId,
});
