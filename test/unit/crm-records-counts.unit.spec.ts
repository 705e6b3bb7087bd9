import Database from 'better-sqlite3';
import fc from 'fast-check';
import { CrmRecordsQueries, CUSTOM_TYPES } from '../../src/crm-records/application/crm-records.queries';
import { CrmRecordEventType } from '../../src/crm-records/crm-records.events';
import { CrmRecordsProjection } from '../../src/crm-records/projections/crm-records.projection';
import type { Recorded } from '../../src/platform/events/event-type-registry';

/**
 * The records read model keeps its live counts per account and type (what the record ceiling and
 * the limits GET read) in step with its rows: after any sequence of creates (some made again under
 * their id), archives, restores, merges and purges, each count is the COUNT of live rows.
 */
const TYPES = ['0-1', '0-2', '2-100', '2-200'];
const HUBS = [7, 8];

const op = fc.record({
  kind: fc.constantFrom('create', 'archive', 'restore', 'merge', 'purge'),
  hub: fc.constantFrom(...HUBS),
  type: fc.constantFrom(...TYPES),
  id: fc.integer({ min: 1, max: 6 }),
});

describe('crm-records read model: live counts', () => {
  it('each count equals the live rows after any sequence of record events', () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 60 }), (ops) => {
        const db = new Database(':memory:');
        const projection = new CrmRecordsProjection();
        projection.setup(db);
        const queries = new CrmRecordsQueries(db);
        let position = 0;
        for (const { kind, hub, type, id } of ops) {
          const at = 1_700_000_000_000 + position;
          const key = { hubId: hub, objectTypeId: type, id, appId: null, userId: null };
          const data =
            kind === 'create'
              ? { ...key, properties: { name: `n${id}` }, createdAt: at }
              : kind === 'archive'
                ? { ...key, archivedAt: at }
                : kind === 'restore'
                  ? { ...key, properties: {}, createdAt: at, archivedAt: at, restoredAt: at }
                  : kind === 'merge'
                    ? { ...key, into: id + 1, mergedAt: at }
                    : { hubId: hub, objectTypeId: type, id, purgedAt: at };
          const type_ = {
            create: CrmRecordEventType.RecordCreated,
            archive: CrmRecordEventType.RecordArchived,
            restore: CrmRecordEventType.RecordRestored,
            merge: CrmRecordEventType.RecordMerged,
            purge: CrmRecordEventType.RecordPurged,
          }[kind];
          projection.apply({ type: type_, data, position: ++position } as unknown as Recorded<never>, db);
        }
        const live = (hub: number, where: string, ...params: string[]) =>
          (
            db
              .prepare(`SELECT COUNT(*) AS n FROM crm_records WHERE hub_id = ? AND archived = 0 AND ${where}`)
              .get(hub, ...params) as { n: number }
          ).n;
        for (const hub of HUBS) {
          for (const type of TYPES) expect(queries.liveCount(hub, type)).toBe(live(hub, 'object_type_id = ?', type));
          expect(queries.liveCount(hub, CUSTOM_TYPES)).toBe(live(hub, "object_type_id LIKE '2-%'"));
          const expected = TYPES.map((t) => ({ objectTypeId: t, count: live(hub, 'object_type_id = ?', t) })).filter(
            (c) => c.count > 0,
          );
          expect(queries.counts(hub)).toEqual(expected);
        }
        db.close();
      }),
      { seed: 36, numRuns: 200 },
    );
  });
});
