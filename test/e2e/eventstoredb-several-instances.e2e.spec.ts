import { randomUUID } from 'node:crypto';
import { installStream, OAuthEventType } from '../../src/oauth/domain/oauth-events';
import { EventStoreDbEventStore } from '../../src/platform/event-store/eventstoredb-event-store';
import { EsdbStandIn, type Front } from '../support/esdb-standin/server';
import { LIMITS_TEST_SCOPES } from '../support/limits-tokens';
import type { HttpFixtures } from '../support/reliability-fixtures';
import { jsonRequest } from '../support/reliability-service';
import { ServiceCluster, within } from '../support/service-cluster';
import { ensureBuilt, waitForExit } from '../support/service-process';

/*
 * Three service processes (dist/main.js) on one EventStoreDB stand-in (test/support/esdb-standin:
 * EventStoreDB's protocol over gRPC, not its engine), with shared TOKEN_SIGNING_KEYS and
 * SESSION_SECRET, each through its own loopback front so that one can be cut off alone. The
 * docs/operations.md's several-instances guarantees: (a) decisions at a ceiling stay consistent, (b)
 * revocations and uninstalls are seen everywhere within 1 s, (c) read-your-writes on the writing
 * instance, (d) the cards migration migrates each portal once and survives the kill -9 of the
 * instance that started it, (e) an instance cut off from the store reports not-ready and catches up.
 */

jest.setTimeout(120_000);

const cluster = new ServiceCluster('multi');
const mint = cluster.mint.bind(cluster);

describe('three instances on one EventStoreDB (stand-in)', () => {
  const standIn = new EsdbStandIn();
  const fronts: Front[] = [];
  const instances = cluster.instances;
  let fx: HttpFixtures[] = [];

  beforeAll(async () => {
    ensureBuilt();
    await standIn.start();
    fronts.push(standIn.fronts[0]!, await standIn.addFront(), await standIn.addFront());
    await cluster.start(
      fronts.map((front) => ({ RATE_LIMIT_ENABLED: 'false', EVENTSTORE_CONNECTION_STRING: front.connectionString() })),
    );
    fx = cluster.fx;
  }, 240_000);

  afterAll(async () => {
    await cluster.stop();
    await standIn.stop();
  });

  const ready = async (i: number) => (await fx[i]!.admin('GET', '/health/ready')).status === 200;

  it('(c) read-your-writes on the writing instance; the others see the write within 1 s', async () => {
    for (let round = 0; round < 6; round++) {
      const writer = round % 3;
      const { hubId } = await fx[writer]!.account();
      // Right after the 201, on the same instance, without retrying.
      expect((await fx[writer]!.admin('GET', `/admin/v1/accounts/${hubId}`)).status).toBe(200);
      for (const other of [0, 1, 2].filter((i) => i !== writer)) {
        await within(1000, `account ${hubId} on instance ${other}`, async () => {
          return (await fx[other]!.admin('GET', `/admin/v1/accounts/${hubId}`)).status === 200;
        });
      }
    }
  });

  it('(b) an access token revoked, and an install uninstalled, on one instance are refused by the other two within 1 s', async () => {
    const [a] = fx;
    const dev = await a!.account();
    const app = await a!.app(dev.hubId, ['oauth']);
    const install = async () => {
      const { hubId } = await a!.account();
      const { userId } = await a!.user([hubId]);
      const tokens = await a!.exchange(app, await a!.installCode(app.appId, hubId, userId));
      expect(tokens.status).toBe(200);
      return { hubId, ...tokens.body };
    };
    const details = (i: number, token: string) => fx[i]!.bearer('GET', '/account-info/v3/details', token);

    const revoked = await install();
    for (const i of [1, 2]) expect((await details(i, revoked.access_token)).status).toBe(200);
    const revoke = await jsonRequest(`${a!.url}/oauth/2026-03/token/revoke`, {
      method: 'POST',
      form: { token: revoked.access_token, client_id: app.clientId, client_secret: app.clientSecret },
    });
    expect(revoke.status).toBe(200);
    for (const i of [1, 2]) {
      await within(1000, `revoked token refused by instance ${i}`, async () => {
        return (await details(i, revoked.access_token)).status === 401;
      });
    }

    const uninstalled = await install();
    for (const i of [1, 2]) expect((await fx[i]!.refresh(app, uninstalled.refresh_token)).status).toBe(200);
    const uninstall = await a!.admin('DELETE', `/admin/v1/accounts/${uninstalled.hubId}/installs/${app.appId}`);
    expect(uninstall.status).toBe(204);
    for (const i of [1, 2]) {
      await within(1000, `uninstalled install's refresh token refused by instance ${i}`, async () => {
        return (await fx[i]!.refresh(app, uninstalled.refresh_token)).status === 400;
      });
    }
  });

  it('(a) concurrent creates at a ceiling, spread over the three, never exceed it; each created property is readable everywhere within 1 s', async () => {
    const { hubId } = await fx[0]!.account();
    expect((await fx[0]!.admin('PUT', `/admin/v1/accounts/${hubId}/limits`, { customProperties: 6 })).status).toBe(200);
    const token = mint({ hubId, appId: 1, scopes: LIMITS_TEST_SCOPES });
    const property = (name: string) => ({
      name,
      label: name,
      type: 'string',
      fieldType: 'text',
      groupName: 'contactinformation',
    });
    type Limits = { byObjectType: Array<{ objectTypeId: string; usage: number; limit: number }> };
    const contacts = async (i: number) =>
      (await fx[i]!.bearer<Limits>('GET', '/crm/v3/limits/custom-properties', token)).body.byObjectType.find(
        (r) => r.objectTypeId === '0-1',
      );
    // The override reached every instance (within 1 s) before the race.
    for (const i of [0, 1, 2])
      await within(1000, `ceiling 6 on instance ${i}`, async () => (await contacts(i))?.limit === 6);
    const answers = await Promise.all(
      Array.from({ length: 18 }, (_, i) =>
        fx[i % 3]!.bearer('POST', '/crm/v3/properties/contacts', token, property(`race_${i}`)),
      ),
    );
    const created = answers.filter((r) => r.status === 201).length;
    expect(created).toBe(6);
    for (const r of answers.filter((x) => x.status !== 201)) expect(r.status).toBe(400);
    // Each property created on one instance is readable on the other two within 1 s.
    const names = answers.flatMap((r, i) => (r.status === 201 ? [{ name: `race_${i}`, writer: i % 3 }] : []));
    for (const { name, writer } of names) {
      for (const other of [0, 1, 2].filter((i) => i !== writer)) {
        await within(1000, `property ${name} on instance ${other}`, async () => {
          return (await fx[other]!.bearer('GET', `/crm/v3/properties/contacts/${name}`, token)).status === 200;
        });
      }
    }
    for (const i of [0, 1, 2]) {
      await within(1000, `usage 6 on instance ${i}`, async () => (await contacts(i))?.usage === 6);
    }
  });

  it('(e) an instance cut off from the store reports not-ready, then catches up', async () => {
    expect(await ready(2)).toBe(true);
    fronts[2]!.cut();
    await within(15_000, 'instance 2 not ready', async () => !(await ready(2)));
    const { hubId } = await fx[0]!.account();
    expect((await fx[2]!.admin('GET', `/admin/v1/accounts/${hubId}`)).status).toBe(404);
    fronts[2]!.restore();
    await within(15_000, 'instance 2 ready again', () => ready(2));
    await within(1000, 'the account written meanwhile on instance 2', async () => {
      return (await fx[2]!.admin('GET', `/admin/v1/accounts/${hubId}`)).status === 200;
    });
  });

  it('(d) the cards migration migrates each portal exactly once, and finishes after kill -9 of the instance that started it', async () => {
    const PORTALS = 400;
    const dev = await fx[0]!.account();
    const app = await fx[0]!.app(dev.hubId, ['oauth']);
    const devToken = mint({
      hubId: dev.hubId,
      appId: app.appId,
      scopes: ['oauth', 'developers-read', 'developers-write'],
    });
    const legacy = await fx[0]!.bearer<{ id: string }>('POST', `/crm/v3/extensions/cards-dev/${app.appId}`, devToken, {
      title: 'Legacy',
      fetch: { targetUrl: 'https://example.com/f', objectTypes: [{ name: 'contacts', propertiesToSend: [] }] },
      display: { properties: [] },
      actions: { baseUrls: [] },
    });
    expect(legacy.status).toBe(201);
    const appCard = await fx[0]!.admin<{ id: string }>('POST', `/admin/v1/apps/${app.appId}/app-cards`, {
      title: 'App card',
      objectTypes: ['contacts'],
    });
    expect(appCard.status).toBe(201);
    // The app installed in many accounts: the event a first install writes, appended directly.
    const store = new EventStoreDbEventStore(standIn.connectionString);
    const hubIds = Array.from({ length: PORTALS }, (_, i) => 8_000_000 + i);
    try {
      for (let i = 0; i < hubIds.length; i += 100) {
        await Promise.all(
          hubIds.slice(i, i + 100).map((hubId) =>
            store.append(
              installStream(app.appId, hubId),
              [
                {
                  type: OAuthEventType.AppInstalled,
                  data: {
                    appId: app.appId,
                    hubId,
                    installId: randomUUID(),
                    installingUserId: 1,
                    scopes: ['oauth'],
                    installedAt: Date.now(),
                  },
                  metadata: {
                    eventId: randomUUID(),
                    correlationId: randomUUID(),
                    causationId: null,
                    actor: 'user:1',
                    occurredAt: Date.now(),
                  },
                },
              ],
              'no_stream',
            ),
          ),
        );
      }
    } finally {
      await store.close();
    }
    const migrated = () =>
      standIn.log.records.filter((r) => r.type === 'cards.PortalCardMigrated' && r.streamId.includes(legacy.body.id));
    const started = await fx[0]!.bearer('POST', `/crm/v3/extensions/cards-dev/${app.appId}/views/migrate`, devToken, {
      legacyCrmCardId: legacy.body.id,
      appCardId: appCard.body.id,
      allowDuplicateAppCardIds: false,
    });
    expect(started.status).toBe(200);
    expect(started.body).toMatchObject({ totalPortalCount: PORTALS });
    // Kill the instance that started it once a tenth is migrated, before the end.
    await within(60_000, 'a tenth migrated', async () => migrated().length >= PORTALS / 10);
    instances[0]!.child.kill('SIGKILL');
    await waitForExit(instances[0]!.child);
    const atKill = migrated().length;
    expect(atKill).toBeLessThan(PORTALS);

    const progress = async () =>
      (
        await fx[1]!.admin<{ results: Array<{ migratedPortalCount: number; endedAt: number | null }> }>(
          'GET',
          `/admin/v1/apps/${app.appId}/card-migrations`,
        )
      ).body.results[0];
    await within(90_000, 'migration finished on the survivors', async () => (await progress())?.endedAt != null);
    expect((await progress())?.migratedPortalCount).toBe(PORTALS);
    const perHub = new Map<number, number>();
    for (const r of migrated()) {
      const { hubId } = JSON.parse(r.data.toString('utf8')) as { hubId: number };
      perHub.set(hubId, (perHub.get(hubId) ?? 0) + 1);
    }
    expect(perHub.size).toBe(PORTALS);
    expect([...perHub.values()].every((n) => n === 1)).toBe(true);
    expect(atKill).toBeGreaterThan(0);
  });
});
