import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CardsQueries } from '../../src/cards/application/cards.queries';
import { CardsModule } from '../../src/cards/cards.module';
import type { NewEvent } from '../../src/platform/events/envelope';
import type { EventStore, ExpectedRevision } from '../../src/platform/event-store/event-store.port';
import { SqliteEventStore } from '../../src/platform/event-store/sqlite-event-store';
import { StorageFaultError } from '../../src/platform/event-store/storage-fault';
import { eventsOfType, recordInstalls, settle, waitForEvent } from '../support/cards-fixtures';
import { mintCardsToken } from '../support/cards-tokens';
import { createAccount, createApp, startTestApp } from '../support/test-app';

/**
 * The embedded store, except that while `full` it refuses the migration's appends as a full disk
 * would (the typed error the SQLite writer gives for SQLITE_FULL): a fault injected at the store's
 * port, because the writer thread's file cannot be capped from the test.
 */
class FillableStore {
  full = false;
  refused = 0;
  /** Called as each append is refused, before the refusal reaches the worker. */
  onRefuse: (() => void) | null = null;
  private onRefused: (() => void) | null = null;
  constructor(readonly inner: SqliteEventStore) {}
  asEventStore(): EventStore {
    return new Proxy(this.inner, {
      get: (target, key, receiver) => {
        if (key !== 'append') {
          const value = Reflect.get(target, key, receiver) as unknown;
          return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
        }
        return (streamId: string, events: NewEvent[], expected: ExpectedRevision) => {
          if (this.full && events.some((e) => e.type === 'cards.PortalCardMigrated')) {
            this.refused += 1;
            this.onRefuse?.();
            this.onRefused?.();
            return Promise.reject(new StorageFaultError('full', 'SQLITE_FULL', 'database or disk is full'));
          }
          return target.append(streamId, events, expected);
        };
      },
    });
  }
  refusedOnce(): Promise<void> {
    return this.refused > 0 ? Promise.resolve() : new Promise((resolve) => (this.onRefused = resolve));
  }
}

describe('cards migration worker on a storage fault', () => {
  it.each([
    ['', false],
    [' (the read model failing too while the fault is handled)', true],
  ])(
    'stops on the fault, starts again by itself once space returns, and migrates every account once%s',
    async (_, readModelFails) => {
      const dataDir = mkdtempSync(join(tmpdir(), 'hs-migration-fault-'));
      const store = new FillableStore(new SqliteEventStore(join(dataDir, 'events.sqlite')));
      const t = await startTestApp({ dataDir, modules: [CardsModule], eventStore: store.asEventStore() });
      try {
        const developer = await createAccount(t);
        const appId = (await createApp(t, { developerHubId: developer.hubId })).appId;
        const token = mintCardsToken(t, { hubId: developer.hubId, appId });
        const legacy = await t.inject({
          method: 'POST',
          url: `/crm/v3/extensions/cards-dev/${appId}`,
          headers: { authorization: `Bearer ${token}` },
          payload: {
            title: 'Legacy',
            fetch: { targetUrl: 'https://example.com/f', objectTypes: [{ name: 'deals', propertiesToSend: [] }] },
            display: { properties: [] },
            actions: { baseUrls: [] },
          },
        });
        const appCard = await t.admin('POST', `/admin/v1/apps/${appId}/app-cards`, {
          title: 'App card',
          objectTypes: ['deals'],
        });
        const hubIds = Array.from({ length: 100 }, (_, i) => 800_000 + i);
        await recordInstalls(t, appId, hubIds);
        await settle(t);

        // With readModelFails: once the migration has started (its HTTP answer read the read model
        // as usual), the worker's read of its progress while it handles the next refusal throws, as
        // a read-model file failing with the disk would.
        let armed = false;
        let failNext = false;
        let refusedWhileArmed: () => void = () => {};
        const refusalWhileArmed = new Promise<void>((resolve) => (refusedWhileArmed = resolve));
        if (readModelFails) {
          const queries = t.app.get(CardsQueries);
          const migration = queries.migration.bind(queries);
          store.onRefuse = () => {
            if (!armed) return;
            failNext = true;
            refusedWhileArmed();
          };
          jest.spyOn(queries, 'migration').mockImplementation((id) => {
            if (!failNext) return migration(id);
            failNext = false;
            throw new Error('SQLITE_IOERR: disk I/O error');
          });
        }
        store.full = true;
        const started = await t.inject({
          method: 'POST',
          url: `/crm/v3/extensions/cards-dev/${appId}/views/migrate`,
          headers: { authorization: `Bearer ${token}` },
          payload: { legacyCrmCardId: legacy.json().id, appCardId: appCard.json().id, allowDuplicateAppCardIds: false },
        });
        expect(started.statusCode).toBe(200);
        armed = true;
        await (readModelFails ? refusalWhileArmed : store.refusedOnce());
        store.full = false;

        await waitForEvent(t, (e) => e.type === 'cards.MigrationCompleted');
        const migrated = (await eventsOfType(t, 'cards.PortalCardMigrated')).map(
          (e) => (e.data as { hubId: number }).hubId,
        );
        expect(migrated.sort((a, b) => a - b)).toEqual(hubIds);
        expect(store.refused).toBeGreaterThan(0);
      } finally {
        await t.close();
      }
    },
    60_000,
  );
});
