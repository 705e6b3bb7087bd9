import { auditView } from '../../src/platform/events/credential-hashes';
import { EventStoreDbEventStore } from '../../src/platform/event-store/eventstoredb-event-store';
import { EVENT_STORE, type EventStore } from '../../src/platform/event-store/event-store.port';
import { ProjectionRunner } from '../../src/platform/projections/projection-runner';
import { ConsoleClient } from '../support/console-client';
import { EsdbStandIn } from '../support/esdb-standin/server';
import { installAndExchange, oauthFixture, type OAuthFixture } from '../support/oauth-fixtures';
import { createAccount, startTestApp, type TestApp } from '../support/test-app';

jest.setTimeout(60_000);

/** The audit trail page on the EventStoreDB adapter (stand-in over gRPC): newest first, filtered, paged. */
describe('console audit trail on EventStoreDB (stand-in)', () => {
  const standIn = new EsdbStandIn();
  let t: TestApp;
  let c: ConsoleClient;
  let f: OAuthFixture;
  let store: EventStore;

  /** The positions a page lists, in order. */
  const positionsOf = (body: string) => [...body.matchAll(/<tr>\s*<td>(\d+)<\/td>/g)].map((m) => Number(m[1]));
  const olderOf = (body: string) => /href="([^"]*before=\d+)">Older/.exec(body)?.[1]?.replace(/&amp;/g, '&');

  beforeAll(async () => {
    const connectionString = await standIn.start();
    t = await startTestApp({
      eventStore: new EventStoreDbEventStore(connectionString, {
        appendRetryDelayMs: 5,
        backoff: { initialMs: 5, maxMs: 50 },
      }),
    });
    store = t.app.get<EventStore>(EVENT_STORE);
    expect(store.kind).toBe('eventstoredb');
    f = await oauthFixture(t);
    await installAndExchange(t, f);
    for (let i = 0; i < 60; i++) await createAccount(t);
    await t.app.get(ProjectionRunner).waitFor(await store.headPosition());
    c = new ConsoleClient(t);
    await c.signIn();
  });
  afterAll(async () => {
    await t?.close();
    await standIn.stop();
  });

  /** Every event of the store, newest first (what the pages must add up to). */
  const all = async () => {
    const out = [];
    for (let after = 0; ;) {
      const page = await store.readAll({ after, limit: 1000 });
      if (page.length === 0) return out.reverse();
      out.push(...page);
      after = page.at(-1)!.position;
    }
  };

  it('pages the whole trail newest first through "Older"', async () => {
    const expected = (await all()).map((e) => e.position);
    const first = await c.get('/console/events');
    expect(first.statusCode).toBe(200);
    expect(positionsOf(first.body)).toEqual(expected.slice(0, 50));
    const second = await c.get(olderOf(first.body)!);
    expect(positionsOf(second.body)).toEqual(expected.slice(50, 100));
  });

  it('filters by account and app through the index, by type and stream, and by correlation id', async () => {
    const events = await all();
    // An event concerns an account when its (decoded) data's hubId, portalId, developerHubId or hubIds name it.
    const names = (d: Record<string, unknown>) =>
      [d.hubId, d.portalId, d.developerHubId].includes(f.hubId) ||
      (Array.isArray(d.hubIds) && d.hubIds.includes(f.hubId));
    const ofAccount = events.filter((e) => names(auditView(e).data as Record<string, unknown>)).map((e) => e.position);
    expect(ofAccount.length).toBeGreaterThan(2);
    expect(positionsOf((await c.get(`/console/events?hubId=${f.hubId}`)).body)).toEqual(ofAccount.slice(0, 50));
    const ofApp = events
      .filter((e) => (auditView(e).data as { appId?: number }).appId === f.appId)
      .map((e) => e.position);
    expect(ofApp.length).toBeGreaterThan(1);
    expect(positionsOf((await c.get(`/console/events?appId=${f.appId}`)).body)).toEqual(ofApp.slice(0, 50));
    const type = 'directory.AccountCreated';
    const ofType = events.filter((e) => e.type === type).map((e) => e.position);
    const typePage = await c.get(`/console/events?type=${type}`);
    expect(positionsOf(typePage.body)).toEqual(ofType.slice(0, 50));
    expect(positionsOf((await c.get(olderOf(typePage.body)!)).body)).toEqual(ofType.slice(50, 100));
    const stream = events.find((e) => e.type === type)!.streamId;
    expect(positionsOf((await c.get(`/console/events?stream=${encodeURIComponent(stream)}`)).body)).toEqual(
      events.filter((e) => e.streamId === stream).map((e) => e.position),
    );
    const correlationId = events[3]!.metadata.correlationId;
    expect(positionsOf((await c.get(`/console/events?correlationId=${correlationId}`)).body)).toEqual(
      events
        .filter((e) => e.metadata.correlationId === correlationId)
        .map((e) => e.position)
        .slice(0, 50),
    );
    // Combinations: intersected in the console's index, only the matching events read (readAt).
    const combined = events.filter(
      (e) => names(auditView(e).data as Record<string, unknown>) && e.metadata.correlationId === correlationId,
    );
    expect(positionsOf((await c.get(`/console/events?hubId=${f.hubId}&correlationId=${correlationId}`)).body)).toEqual(
      combined.map((e) => e.position).slice(0, 50),
    );
    const accountAndType = events.filter((e) => e.type === type && names(auditView(e).data as Record<string, unknown>));
    expect(accountAndType.length).toBeGreaterThan(0);
    expect(positionsOf((await c.get(`/console/events?hubId=${f.hubId}&type=${type}`)).body)).toEqual(
      accountAndType.map((e) => e.position).slice(0, 50),
    );
    const none = await c.get(
      `/console/events?hubId=${f.hubId}&correlationId=nobody&stream=${encodeURIComponent(stream)}`,
    );
    expect(positionsOf(none.body)).toEqual([]);
    expect(none.body).toContain('No events match.');
  });

  it('answers a made-up `before` with a 400 page or a page from the end, never a 5xx', async () => {
    for (const before of [1, 7, 123456789]) {
      const r = await c.get(`/console/events?before=${before}`);
      expect([400, 200]).toContain(r.statusCode);
      expect(r.headers['content-type']).toContain('text/html');
    }
  });
});
