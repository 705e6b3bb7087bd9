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
 * loopback receiver takes a few ms per request), then a restart on the same DATA_DIR: every contact
 * whose create was acknowledged reaches the receiver at least once, and each contact's item keeps
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
    // Slow enough that deliveries are in flight when the process dies.
    receiver.answer = () => 'hold';
    const releaser = setInterval(() => {
      while (receiver.release());
    }, 5);

    const acknowledged = new Set<number>();
    let killed = false;
    const victim = running;
    const client = async (w: number) => {
      for (let i = 0; !killed && i < 40; i++) {
        const inputs = Array.from({ length: 25 }, (_, k) => ({ properties: { email: `w${w}-${i}-${k}@example.com` } }));
        try {
          const r = await fx.bearer<{ results: { id: string }[] }>(
            'POST',
            '/crm/v3/objects/contacts/batch/create',
            token,
            {
              inputs,
            },
          );
          if (r.status !== 201) throw new Error(`batch create answered ${r.status}`);
          for (const c of r.body.results) acknowledged.add(Number(c.id));
        } catch (error) {
          if (!killed) throw error;
        }
        if (receiver.items().length >= 400 && !killed) {
          killed = true;
          victim.child.kill('SIGKILL');
        }
      }
    };
    await Promise.all(Array.from({ length: 4 }, (_, w) => client(w)));
    await stopService(victim, 'SIGKILL');
    expect(killed).toBe(true);
    const beforeRestart = new Set(receiver.items().map((i) => i.objectId as number));
    expect([...acknowledged].some((id) => !beforeRestart.has(id))).toBe(true); // some were still to come

    running = await startReliabilityService(env);
    const arrived = () => new Set(receiver.items().map((i) => i.objectId as number));
    await receiver.waitFor(
      () => [...acknowledged].every((id) => arrived().has(id)),
      `all ${acknowledged.size} acknowledged creations`,
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
