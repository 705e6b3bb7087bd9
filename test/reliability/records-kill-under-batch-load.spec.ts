import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HttpFixtures } from '../support/reliability-fixtures';
import { ensureBuilt, startReliabilityService, stopService, type RunningService } from '../support/reliability-service';

const ADMIN = 'reliability-admin-key-0123456789';

interface Page {
  results: Array<{ id: string; properties: { email?: string } }>;
  paging?: { next: { after: string } };
}

/**
 * kill -9 of the real service while 8 clients run batch creates of contacts whose e-mails collide
 * (a shared pool, so many inputs lose a claim race and come back as 207 errors), then a restart on
 * the same DATA_DIR: every contact answered in a batch's results is still there with its e-mail,
 * and no e-mail belongs to two live contacts. An answer is only sent after its events were
 * committed, and an e-mail is claimed on its own stream before its contact is stored.
 */
describe('reliability: kill -9 under batch creates of contacts', () => {
  let dataDir: string;
  let running: RunningService | undefined;
  beforeAll(() => {
    ensureBuilt();
    dataDir = mkdtempSync(join(tmpdir(), 'hs-rel-records-'));
  }, 180_000);
  afterAll(async () => {
    if (running) await stopService(running, 'SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('keeps every acknowledged contact and leaves no duplicate e-mail', async () => {
    const env = { DATA_DIR: dataDir, SEED: 'none', ADMIN_API_KEY: ADMIN, RATE_LIMIT_ENABLED: 'false' };
    running = await startReliabilityService(env);
    let fx = new HttpFixtures(running.url, ADMIN);
    const hub = await fx.account();
    const user = await fx.user([hub.hubId]);
    const app = await fx.app(hub.hubId, ['oauth', 'crm.objects.contacts.read', 'crm.objects.contacts.write']);
    const tokens = await fx.exchange(app, await fx.installCode(app.appId, hub.hubId, user.userId));
    expect(tokens.status).toBe(200);
    const token = tokens.body.access_token;

    const acknowledged = new Map<string, string>(); // contact id → e-mail
    const KILL_AFTER = 1_500;
    const POOL = 4_000; // e-mails, drawn so that batches collide
    let killed = false;
    let cut = 0;
    let refused = 0;
    const victim = running;
    const client = async (w: number) => {
      for (let i = 0; !killed && i < 200; i++) {
        const inputs = Array.from({ length: 20 }, (_, k) => ({
          properties: { email: `c${(w * 997 + i * 131 + k * 17) % POOL}@example.com` },
        }));
        try {
          const r = await fx.bearer<{
            results: Array<{ id: string; properties: { email: string } }>;
            numErrors?: number;
          }>('POST', '/crm/v3/objects/contacts/batch/create', token, { inputs });
          if (r.status !== 201 && r.status !== 207) throw new Error(`batch create answered ${r.status}`);
          for (const c of r.body.results) acknowledged.set(c.id, c.properties.email);
          refused += r.body.numErrors ?? 0;
        } catch (error) {
          if (!killed) throw error;
          cut++;
        }
        if (acknowledged.size >= KILL_AFTER && !killed) {
          killed = true;
          victim.child.kill('SIGKILL');
        }
      }
    };
    await Promise.all(Array.from({ length: 8 }, (_, w) => client(w)));
    await stopService(victim, 'SIGKILL');
    expect(killed).toBe(true);
    expect(refused).toBeGreaterThan(0); // the collisions happened

    running = await startReliabilityService(env);
    fx = new HttpFixtures(running.url, ADMIN);
    expect((await fx.admin('GET', '/health/ready')).status).toBe(200);

    // Every live contact, page by page.
    const live: Page['results'] = [];
    for (let after = ''; ;) {
      const r = await fx.bearer<Page>(
        'GET',
        `/crm/v3/objects/contacts?limit=100&properties=email${after ? `&after=${after}` : ''}`,
        token,
      );
      expect(r.status).toBe(200);
      live.push(...r.body.results);
      if (!r.body.paging) break;
      after = r.body.paging.next.after;
    }
    const byId = new Map(live.map((c) => [c.id, c.properties.email]));
    const lost = [...acknowledged].filter(([id, email]) => byId.get(id) !== email);
    expect(lost).toEqual([]);
    const emails = live.map((c) => c.properties.email!.toLowerCase());
    expect(emails.length - new Set(emails).size).toBe(0);
    process.stdout.write(
      `records kill -9: ${acknowledged.size} contacts acknowledged before the kill (${cut} batches cut, ${refused} inputs refused as duplicates); ${live.length} live after restart, no duplicate e-mail\n`,
    );
  });
});
