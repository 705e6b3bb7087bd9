import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HttpFixtures } from '../support/reliability-fixtures';
import {
  ensureBuilt,
  jsonRequest,
  startReliabilityService,
  stopService,
  type RunningService,
} from '../support/reliability-service';
import { WebhookReceiver } from '../support/webhook-receiver';

const ADMIN = 'reliability-admin-key-0123456789';

/**
 * kill -9 of the real service during a flood of webhook deliveries (contacts batch-created while a
 * loopback receiver takes a few ms per request), killed while requests are sent and not answered, then
 * a restart on the same DATA_DIR: every contact whose create was acknowledged reaches the receiver at
 * least once, every item in flight at the kill comes again, and each contact's item keeps
 * one eventId however often it came. A request is recorded (webhooks.DeliveryAttempted) only after
 * its answer, so an item in flight at the kill is still waiting at the restart and is sent again.
 */
describe('reliability: kill -9 during webhook deliveries', () => {
  let dataDir: string;
  let running: RunningService | undefined;
  let receiver: WebhookReceiver;
  beforeAll(async () => {
    ensureBuilt();
    dataDir = mkdtempSync(join(tmpdir(), 'hs-rel-webhooks-'));
    receiver = await new WebhookReceiver().start();
  }, 180_000);
  afterAll(async () => {
    if (running) await stopService(running, 'SIGKILL');
    await receiver.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('delivers every acknowledged contact’s creation after the restart, with a stable eventId', async () => {
    const env = { DATA_DIR: dataDir, SEED: 'none', ADMIN_API_KEY: ADMIN, RATE_LIMIT_ENABLED: 'false' };
    running = await startReliabilityService(env);
    const fx = new HttpFixtures(running.url, ADMIN);
    const hub = await fx.account();
    const user = await fx.user([hub.hubId]);
    const app = await fx.app(hub.hubId, ['oauth', 'crm.objects.contacts.read', 'crm.objects.contacts.write']);
    const tokens = await fx.exchange(app, await fx.installCode(app.appId, hub.hubId, user.userId));
    expect(tokens.status).toBe(200);
    const token = tokens.body.access_token;
    const key = await fx.admin<{ developerApiKey: string }>(
      'POST',
      `/admin/v1/accounts/${hub.hubId}/developer-api-keys`,
    );
    const dev = (method: string, path: string, json: unknown) =>
      jsonRequest(`${running!.url}/webhooks/v3/${app.appId}${path}?hapikey=${key.body.developerApiKey}`, {
        method,
        json,
      });
    expect(
      (await dev('PUT', '/settings', { targetUrl: receiver.url, throttling: { maxConcurrentRequests: 4 } })).status,
    ).toBe(200);
    expect((await dev('POST', '/subscriptions', { eventType: 'contact.creation', active: true })).status).toBe(201);
    // Each request held a few ms (slow enough that deliveries are in flight), released in order.
    receiver.answer = () => 'hold';
    const releaseAll = () => {
      while (receiver.release());
    };
    let releaser = setInterval(releaseAll, 5);

    const acknowledged = new Set<number>();
    const createBatch = async (label: string) => {
      const inputs = Array.from({ length: 25 }, (_, k) => ({ properties: { email: `${label}-${k}@example.com` } }));
      const r = await fx.bearer<{ results: { id: string }[] }>('POST', '/crm/v3/objects/contacts/batch/create', token, {
        inputs,
      });
      if (r.status !== 201) throw new Error(`batch create answered ${r.status}`);
      for (const c of r.body.results) acknowledged.add(Number(c.id));
    };
    // The flood: four clients creating until 400 items reached the receiver.
    let flooded = false;
    const client = async (w: number) => {
      for (let i = 0; !flooded && i < 40; i++) {
        await createBatch(`w${w}-${i}`);
        if (receiver.items().length >= 400) flooded = true;
      }
    };
    await Promise.all(Array.from({ length: 4 }, (_, w) => client(w)));
    expect(flooded).toBe(true);
    // Nothing answered from here: one more batch is either held at the receiver or waits behind the
    // held requests (at most 4 in flight). The kill comes with requests sent and never answered.
    clearInterval(releaser);
    await createBatch('last');
    await receiver.waitFor(() => receiver.heldCount > 0, 'a request in flight at the kill');
    const unanswered = receiver.requests
      .slice(-receiver.heldCount)
      .flatMap((r) => r.items.map((i) => i.objectId as number));
    expect(unanswered.length).toBeGreaterThan(0);
    await stopService(running, 'SIGKILL');
    const timesBefore = (id: number) => receiver.items().filter((i) => i.objectId === id).length;
    const before = new Map(unanswered.map((id) => [id, timesBefore(id)]));
    releaseAll();
    releaser = setInterval(releaseAll, 5);

    running = await startReliabilityService(env);
    const arrived = () => new Set(receiver.items().map((i) => i.objectId as number));
    await receiver.waitFor(
      () => [...acknowledged].every((id) => arrived().has(id)),
      `all ${acknowledged.size} acknowledged creations`,
      60_000,
    );
    // What was in flight at the kill was never recorded: it came again after the restart.
    await receiver.waitFor(
      () => [...before].every(([id, n]) => timesBefore(id) > n),
      `the ${before.size} items in flight at the kill, again`,
      60_000,
    );
    clearInterval(releaser);
    const eventIds = new Map<number, Set<unknown>>();
    for (const item of receiver.items()) {
      const ids = eventIds.get(item.objectId as number) ?? new Set();
      ids.add(item.eventId);
      eventIds.set(item.objectId as number, ids);
    }
    expect([...eventIds.values()].every((ids) => ids.size === 1)).toBe(true);
  }, 240_000);
});
