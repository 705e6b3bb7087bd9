import { segmentKey } from '../../src/platform/archive/archive-manifest';
import { historyArchiveDecider, type RecordArchivedHistoryCommand } from '../../src/ops/domain/history-archive.decider';
import { OpsEventType, type HistoryArchived } from '../../src/ops/domain/ops-events';
import { DeciderSpecification } from '../support/decider-specification';

const NOW = Date.UTC(2026, 0, 2);
const FILE = 'history-2026-01-01.ndjson';

/** The segment of `FILE` at `offset`, as the archiver names it in its manifest. */
const segment = (offset: number): RecordArchivedHistoryCommand['batch'] => ({
  file: FILE,
  offset,
  bytes: 1200,
  sha256: `sha-${offset}`,
  count: 3,
  firstPosition: 10 + offset,
  lastPosition: 12 + offset,
});

const record = (offset: number, now = NOW): RecordArchivedHistoryCommand => ({
  type: 'RecordArchivedHistory',
  batch: segment(offset),
  retentionDays: 90,
  now,
});

const archived = (offset: number, archivedAt = NOW): HistoryArchived => ({
  type: OpsEventType.HistoryArchived,
  data: { ...segment(offset), retentionDays: 90, archivedAt },
});

describe('ops deciders', () => {
  describe('history archive (one stream per archive file)', () => {
    const spec = DeciderSpecification.for(historyArchiveDecider);

    it('records a segment not recorded yet: ops.HistoryArchived with the retention and the time', () => {
      spec
        .given([])
        .when(record(0))
        .then([archived(0)]);
    });

    it('records another segment of the same file', () => {
      spec
        .given([archived(0)])
        .when(record(1200, NOW + 1))
        .then([archived(1200, NOW + 1)]);
    });

    it('a segment recorded already is not recorded again (a reconcile after a crash, a retried batch)', () => {
      spec
        .given([archived(0)])
        .when(record(0))
        .thenNothing();
      spec
        .given([archived(0), archived(1200)])
        .when(record(1200, NOW + 5))
        .thenNothing();
    });

    it('a segment is known by file and offset: the same offset is recorded once, whatever else the command says', () => {
      const other = { ...record(0, NOW + 9), batch: { ...segment(0), sha256: 'another', count: 7 } };
      spec
        .given([archived(0)])
        .when(other)
        .thenNothing();
    });

    it('the state after a decision holds every recorded segment key', () => {
      spec
        .given([archived(0)])
        .when(record(1200))
        .thenState((state) => {
          expect([...state.recorded].sort()).toEqual([segmentKey(FILE, 0), segmentKey(FILE, 1200)]);
        });
    });
  });
});
