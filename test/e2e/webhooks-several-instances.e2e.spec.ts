import { EsdbStandIn } from '../support/esdb-standin/server';
import { jsonRequest } from '../support/reliability-service';
import { ServiceCluster, within } from '../support/service-cluster';
import { ensureBuilt, waitForExit } from '../support/service-process';
import { WebhookReceiver } from '../support/webhook-receiver';

/*
 * App webhooks from three service processes (dist/main.js) on one EventStoreDB stand-in
 * (test/support/esdb-standin: EventStoreDB's protocol over gRPC, not its engine). Only the holder
 * of an app's dispatch lease sends its deliveries: (a) with the three alive, each creation reaches
 * the loopback receiver once, in one request per recorded attempt; (b) kill -9 of the holder while
 * its requests are in flight: another instance takes the lease (a short WEBHOOK_LEASE_MS and
 * WEBHOOK_TIMEOUT_MS, so the takeover needs no long wait) and every acknowledged creation arrives,
 * each with one eventId however often it came.
 */

jest.setTimeout(180_000);

const cluster = new ServiceCluster('hooks');

interface Logged {
  type: string;
  streamId: string;
  data: Buffer;
}

describe('webhooks on three instances over one EventStoreDB (stand-in)', () => {
  const standIn = new EsdbStandIn();
  let receiver: WebhookReceiver;
  let token = '';
  let appId = 0;
  let nextEmail = 0;

  beforeAll(async () => {
    ensureBuilt();
    await standIn.start();
    const fronts = [standIn.fronts[0]!, await standIn.addFront(), await standIn.addFront()];
    receiver = await new WebhookReceiver().start();
    await cluster.start(
      fronts.map((front) => ({
        RATE_LIMIT_ENABLED: 'false',
        EVENTSTORE_CONNECTION_STRING: front.connectionString(),
        WEBHOOK_LEASE_MS: '1000',
        WEBHOOK_TIMEOUT_MS: '2000',
      })),
    );
    const fx = cluster.fx[0]!;
    const hub = await fx.account();
    const user = await fx.user([hub.hubId]);
    const app = await fx.app(hub.hubId, ['oauth', 'crm.objects.contacts.read', 'crm.objects.contacts.write']);
    appId = app.appId;
    const tokens = await fx.exchange(app, await fx.installCode(app.appId, hub.hubId, user.userId));
    expect(tokens.status).toBe(200);
    token = tokens.body.access_token;
    const key = await fx.admin<{ developerApiKey: string }>(
      'POST',
      `/admin/v1/accounts/${hub.hubId}/developer-api-keys`,
    );
    const dev = (method: string, path: string, json: unknown) =>
      jsonRequest(`${cluster.instances[0]!.url}/webhooks/v3/${appId}${path}?hapikey=${key.body.developerApiKey}`, {
        method,
        json,
      });
    const settings = { targetUrl: receiver.url, throttling: { maxConcurrentRequests: 4 } };
    expect((await dev('PUT', '/settings', settings)).status).toBe(200);
    expect((await dev('POST', '/subscriptions', { eventType: 'contact.creation', active: true })).status).toBe(201);
    // Every instance applied the subscription before any contact is created.
    for (const i of [0, 1, 2]) {
      await within(5000, `settings on instance ${i}`, async () => {
        return (await cluster.fx[i]!.admin('GET', `/admin/v1/apps/${appId}/webhook-deliveries`)).status === 200;
      });
    }
  }, 240_000);

  afterAll(async () => {
    await cluster.stop();
    await receiver.stop();
    await standIn.stop();
  });

  const records = (type: string): Logged[] =>
    (standIn.log.records as Logged[]).filter((r) => r.type === type && r.streamId.includes(`-${appId}`));
  const dataOf = <T>(r: Logged) => JSON.parse(r.data.toString('utf8')) as T;

  /** Batch-creates 25 contacts on instance `i`; the ids it acknowledged. */
  const create = async (i: number): Promise<number[]> => {
    const inputs = Array.from({ length: 25 }, () => ({ properties: { email: `c${nextEmail++}@example.com` } }));
    const r = await cluster.fx[i]!.bearer<{ results: { id: string }[] }>(
      'POST',
      '/crm/v3/objects/contacts/batch/create',
      token,
      { inputs },
    );
    if (r.status !== 201) throw new Error(`batch create on instance ${i} answered ${r.status}`);
    return r.body.results.map((c) => Number(c.id));
  };

  /** True once instance `i`'s outbox has nothing left to send (so no instance sends again). */
  const settled = async (i: number) => {
    for (const status of ['pending', 'retrying']) {
      const r = await cluster.fx[i]!.admin<{ results: unknown[] }>(
        'GET',
        `/admin/v1/apps/${appId}/webhook-deliveries?status=${status}&limit=1`,
      );
      if (r.status !== 200 || r.body.results.length > 0) return false;
    }
    return true;
  };

  it('(a) with all three alive, each creation arrives once, in one request per recorded attempt', async () => {
    const acknowledged: number[] = [];
    for (let round = 0; round < 6; round++) acknowledged.push(...(await create(round % 3)));
    await receiver.waitFor(
      () => new Set(receiver.items().map((i) => i.objectId)).size === acknowledged.length,
      `${acknowledged.length} creations`,
      30_000,
    );
    for (const i of [0, 1, 2]) await within(30_000, `instance ${i}'s outbox settled`, () => settled(i));

    const items = receiver.items();
    expect(items).toHaveLength(acknowledged.length);
    expect(new Set(items.map((i) => i.eventId)).size).toBe(acknowledged.length);
    expect(new Set(items.map((i) => i.objectId))).toEqual(new Set(acknowledged));
    // Each request the receiver got is one recorded attempt, and the other way round.
    const attempts = records('webhooks.DeliveryAttempted');
    expect(attempts).toHaveLength(receiver.requests.length);
    const attempted = attempts.flatMap((r) => dataOf<{ items: { eventId: string }[] }>(r).items.map((x) => x.eventId));
    expect(attempted.sort()).toEqual(items.map((i) => String(i.eventId)).sort());
    expect(records('webhooks.DispatchLeaseTaken').length).toBeGreaterThan(0);
  });

  it('(b) kill -9 of the lease holder mid-delivery: another instance takes over and every creation arrives', async () => {
    const before = receiver.requests.length;
    // Held unanswered: the holder's requests are in flight (none recorded) when it dies.
    receiver.answer = () => 'hold';
    let releaser: NodeJS.Timeout | undefined;
    try {
      const acknowledged: number[] = [];
      acknowledged.push(...(await create(0)), ...(await create(1)), ...(await create(2)));
      await receiver.waitFor(() => receiver.requests.length > before, 'the first request of this round', 15_000);
      const taken = records('webhooks.DispatchLeaseTaken');
      const owner = dataOf<{ owner: string }>(taken[taken.length - 1]!).owner;
      const victim = cluster.instances.findIndex((s) => owner.startsWith(`${s.child.pid}-`));
      expect(victim).toBeGreaterThanOrEqual(0);
      cluster.instances[victim]!.child.kill('SIGKILL');
      await waitForExit(cluster.instances[victim]!.child);
      const atKill = receiver.requests.length;
      releaser = setInterval(() => {
        while (receiver.release());
      }, 5);
      const survivors = [0, 1, 2].filter((i) => i !== victim);
      for (const i of survivors) acknowledged.push(...(await create(i)));

      // Sent again after the kill: what was in flight was never recorded, so nothing is lost.
      const arrivedAfterKill = () =>
        new Set(receiver.requests.slice(atKill).flatMap((r) => r.items.map((i) => i.objectId as number)));
      await receiver.waitFor(
        () => acknowledged.every((id) => arrivedAfterKill().has(id)),
        `all ${acknowledged.length} creations of this round after the kill`,
        60_000,
      );
      const eventIds = new Map<unknown, Set<unknown>>();
      for (const item of receiver.items()) {
        eventIds.set(item.objectId, (eventIds.get(item.objectId) ?? new Set()).add(item.eventId));
      }
      expect([...eventIds.values()].every((ids) => ids.size === 1)).toBe(true);
      // A survivor holds the lease now.
      const after = records('webhooks.DispatchLeaseTaken').map((r) => dataOf<{ owner: string }>(r).owner);
      expect(after.slice(taken.length).some((o) => o !== owner)).toBe(true);
    } finally {
      clearInterval(releaser);
    }
  });
});
