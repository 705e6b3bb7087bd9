import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CardsQueries } from '../../src/cards/application/cards.queries';
import type { LegacyCardDefinition } from '../../src/cards/domain/card-events';
import { CardsProjection, type CardsProjectionEvent } from '../../src/cards/projections/cards.projection';
import type { Recorded } from '../../src/platform/events/event-type-registry';

/**
 * Issue 26 item 16: a legacy card's create (and patch, delete) must not write one row per account
 * that installed the app. The projection is applied here as the runner applies it (one
 * transaction per event, on a real SQLite file), and the rows it writes are counted with SQLite's
 * own `total_changes()`: the same for 1 install as for 2,000. The views still show the card in
 * every installed account, in the order the events placed it.
 */
describe('cards projection: a legacy card reaches every install at a cost independent of their number', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'cards-fanout-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /** A read-model file with the cards projection set up, fed events in feed order. */
  function readModel(name: string) {
    const db = new Database(join(dir, `${name}.sqlite`));
    db.pragma('journal_mode = WAL');
    const projection = new CardsProjection();
    projection.setup(db);
    const queries = new CardsQueries(db);
    let position = 0;
    const totalChanges = db.prepare('SELECT total_changes() AS n').pluck();
    /** Applies one event in its own transaction; returns the rows it inserted, updated or deleted. */
    const apply = (type: CardsProjectionEvent['type'], data: object): number => {
      position += 1;
      const event = {
        type,
        data,
        metadata: { eventId: `e${position}`, correlationId: 'c', causationId: null, actor: 'test', occurredAt: 0 },
        streamId: 's',
        revision: 0,
        position,
      } as unknown as Recorded<CardsProjectionEvent>;
      const before = totalChanges.get() as number;
      db.transaction(() => projection.apply(event, db))();
      return (totalChanges.get() as number) - before;
    };
    return { db, queries, apply };
  }

  const definition = (title: string, objectTypes: string[]): LegacyCardDefinition =>
    ({
      title,
      fetch: {
        targetUrl: 'https://example.com/fetch',
        objectTypes: objectTypes.map((n) => ({ name: n, propertiesToSend: [] })),
      },
      display: { properties: [] },
      actions: { baseUrls: ['https://example.com'] },
    }) as LegacyCardDefinition;

  const APP = 7;
  const OTHER_APP = 8;
  const install = (m: ReturnType<typeof readModel>, appId: number, hubId: number) =>
    m.apply('oauth.AppInstalled', { appId, hubId, installedAt: 1 });
  const create = (m: ReturnType<typeof readModel>, cardId: string, objectTypes: string[]) =>
    m.apply('cards.LegacyCardCreated', {
      cardId,
      appId: APP,
      definition: definition(`card ${cardId}`, objectTypes),
      createdAt: 2,
      userId: 1,
    });
  const view = (m: ReturnType<typeof readModel>, hubId: number, name: string) =>
    m.queries
      .accountViews(hubId)
      .find((v) => v.view === name)!
      .cards.map((c) => `${c.cardType === 'APP_CARD' ? 'A' : 'L'}${c.cardId}`);

  /** Rows written by each step of one card's life with this many installs of its app. */
  function rowsWritten(installs: number) {
    const m = readModel(`installs-${installs}`);
    for (let hub = 1; hub <= installs; hub++) install(m, APP, 1000 + hub);
    const created = create(m, '11', ['contacts', 'tickets']);
    const patched = m.apply('cards.LegacyCardUpdated', {
      cardId: '11',
      appId: APP,
      changed: ['fetch'],
      definition: definition('card 11', ['deals']),
      updatedAt: 3,
      userId: 1,
    });
    // Every installed account shows it, wherever in the hub id range.
    for (const hub of [1001, 1000 + installs]) {
      expect(view(m, hub, 'deals')).toEqual(['L11']);
      expect(view(m, hub, 'contacts')).toEqual([]);
    }
    expect(m.queries.portalsHoldingLegacyCard('11')).toBe(installs);
    const deleted = m.apply('cards.LegacyCardDeleted', { cardId: '11', appId: APP, deletedAt: 4, userId: 1 });
    expect(view(m, 1000 + installs, 'deals')).toEqual([]);
    expect(m.queries.portalsHoldingLegacyCard('11')).toBe(0);
    m.db.close();
    return { created, patched, deleted };
  }

  it('writes as many rows for a create, patch and delete with 2,000 installs as with 1', () => {
    const one = rowsWritten(1);
    const many = rowsWritten(2000);
    expect(many).toEqual(one);
    // The card row, its audit row, and one row per view it shows in (contacts, tickets, help desk).
    expect(one.created).toBeLessThanOrEqual(5);
  });

  it('keeps the sidebar order of events across apps, installs and re-installs', () => {
    const m = readModel('order');
    create(m, '5', ['contacts']);
    create(m, '3', ['contacts']);
    install(m, OTHER_APP, 1); // no cards: places nothing
    install(m, APP, 1); // the app's existing cards, in card id order
    expect(view(m, 1, 'contacts')).toEqual(['L3', 'L5']);
    create(m, '40', ['contacts']);
    expect(view(m, 1, 'contacts')).toEqual(['L3', 'L5', 'L40']);
    expect(view(m, 2, 'contacts')).toEqual([]); // not installed there
    install(m, APP, 2);
    expect(view(m, 2, 'contacts')).toEqual(['L3', 'L5', 'L40']);
    // A card gaining a view goes to that view's end; losing one leaves the others' order alone.
    create(m, '41', ['deals']);
    m.apply('cards.LegacyCardUpdated', {
      cardId: '5',
      appId: APP,
      changed: ['fetch'],
      definition: definition('card 5', ['deals']),
      updatedAt: 3,
      userId: 1,
    });
    expect(view(m, 1, 'contacts')).toEqual(['L3', 'L40']);
    expect(view(m, 1, 'deals')).toEqual(['L41', 'L5']);
    // Uninstall and re-install: the cards come back in card id order, at the end of each view.
    m.apply('oauth.AppUninstalled', { appId: APP, hubId: 1 });
    expect(view(m, 1, 'deals')).toEqual([]);
    install(m, APP, 1);
    expect(view(m, 1, 'deals')).toEqual(['L5', 'L41']);
    expect(view(m, 2, 'deals')).toEqual(['L41', 'L5']);
    expect(m.queries.legacyCardPlaces(2, '5')).toEqual([{ view: 'deals', position: 1 }]);
    m.db.close();
  });

  it('replaces the per-account table of version 2 (the version bump then rebuilds the views)', () => {
    const db = new Database(':memory:');
    try {
      // As version 2 of the projection created them.
      db.exec(`
        CREATE TABLE cards_installs (app_id INTEGER NOT NULL, hub_id INTEGER NOT NULL, installed_at INTEGER NOT NULL,
          PRIMARY KEY (app_id, hub_id)) WITHOUT ROWID;
        CREATE TABLE cards_view_items (hub_id INTEGER NOT NULL, view TEXT NOT NULL, slot INTEGER NOT NULL,
          kind TEXT NOT NULL, card_id TEXT NOT NULL, app_id INTEGER NOT NULL, PRIMARY KEY (hub_id, view, slot)) WITHOUT ROWID;
        INSERT INTO cards_installs VALUES (7, 1, 0);
        INSERT INTO cards_view_items VALUES (1, 'contacts', 0, 'legacy', '11', 7);`);
      const projection = new CardsProjection();
      expect(projection.version).toBe(3);
      projection.setup(db);
      projection.setup(db); // idempotent
      const kind = db.prepare("SELECT type FROM sqlite_master WHERE name = 'cards_view_items'").pluck().get();
      expect(kind).toBe('view');
      expect(new CardsQueries(db).accountViews(1).every((v) => v.cards.length === 0)).toBe(true);
      const columns = db.prepare('SELECT name FROM pragma_table_info(?)').pluck().all('cards_installs');
      expect(columns).toContain('placed_at');
    } finally {
      db.close();
    }
  });
});
