import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HttpFixtures } from '../support/reliability-fixtures';
import {
  ensureBuilt,
  inPool,
  startReliabilityService,
  stopService,
  type RunningService,
} from '../support/reliability-service';

const ADMIN = 'reliability-admin-key-0123456789';

/**
 * kill -9 of the real service while 16 clients run refresh grants (and some code exchanges) at
 * full speed, then a restart on the same DATA_DIR: every refresh token and every access token the
 * service answered with 200 before it died still works. An answer is only sent after its event
 * was committed, so nothing acknowledged may be lost.
 */
describe('reliability: kill -9 under refresh-grant load', () => {
  let dataDir: string;
  let running: RunningService | undefined;
  beforeAll(() => {
    ensureBuilt();
    dataDir = mkdtempSync(join(tmpdir(), 'hs-rel-kill-'));
  }, 180_000);
  afterAll(async () => {
    if (running) await stopService(running, 'SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('keeps every refresh token and access token it answered with 200', async () => {
    // Rate limits are not under test here: the checks below call one app and account thousands of times.
    const env = { DATA_DIR: dataDir, SEED: 'none', ADMIN_API_KEY: ADMIN, RATE_LIMIT_ENABLED: 'false' };
    running = await startReliabilityService(env);
    let fx = new HttpFixtures(running.url, ADMIN);
    const dev = await fx.account();
    const hubs = [dev.hubId, (await fx.account()).hubId, (await fx.account()).hubId, (await fx.account()).hubId];
    const user = await fx.user(hubs);
    const app = await fx.app(dev.hubId, ['oauth', 'crm.objects.deals.read']);

    const refreshTokens = new Map<string, number>(); // acknowledged refresh token → hub
    const accessTokens = new Map<string, number>(); // acknowledged access token → hub
    for (const hubId of hubs) {
      for (let i = 0; i < 4; i++) {
        const r = await fx.exchange(app, await fx.installCode(app.appId, hubId, user.userId));
        expect(r.status).toBe(200);
        refreshTokens.set(r.body.refresh_token, hubId);
        accessTokens.set(r.body.access_token, hubId);
      }
    }

    // Load: 16 clients; mostly refresh grants, every 10th a new install + code exchange. The
    // process is killed once 1,500 answers were acknowledged; at most 6,000 requests either way.
    const KILL_AFTER = 1_500;
    let acknowledged = 0;
    let sent = 0;
    let killed = false;
    let cut = 0; // requests that died with the process
    const pool = [...refreshTokens.keys()];
    const victim = running;
    const client = async (w: number) => {
      for (let i = 0; !killed && sent < 6_000; i++) {
        sent++;
        try {
          if (i % 10 === 9) {
            const hubId = hubs[(w + i) % hubs.length]!;
            const code = await fx.installCode(app.appId, hubId, user.userId);
            const r = await fx.exchange(app, code);
            if (r.status === 200) {
              refreshTokens.set(r.body.refresh_token, hubId);
              accessTokens.set(r.body.access_token, hubId);
              pool.push(r.body.refresh_token);
              acknowledged++;
            } else throw new Error(`exchange answered ${r.status} ${r.text}`);
          } else {
            const token = pool[(w * 7 + i) % pool.length]!;
            const r = await fx.refresh(app, token);
            if (r.status === 200) {
              accessTokens.set(r.body.access_token, r.body.hub_id);
              acknowledged++;
            } else throw new Error(`refresh answered ${r.status} ${r.text}`);
          }
        } catch (error) {
          if (!killed) throw error;
          cut++; // connection reset by the kill: never acknowledged
        }
        if (acknowledged >= KILL_AFTER && !killed) {
          killed = true;
          victim.child.kill('SIGKILL');
        }
      }
    };
    await Promise.all(Array.from({ length: 16 }, (_, w) => client(w)));
    await stopService(victim, 'SIGKILL');
    expect(killed).toBe(true);
    expect(victim.child.signalCode).toBe('SIGKILL');
    expect(acknowledged).toBeGreaterThanOrEqual(KILL_AFTER);

    running = await startReliabilityService(env);
    fx = new HttpFixtures(running.url, ADMIN);
    expect((await fx.admin('GET', '/health/ready')).status).toBe(200);

    // Every acknowledged refresh token still refreshes, for its own account.
    const refreshed = await inPool([...refreshTokens], 8, async ([token, hubId]) => {
      const r = await fx.refresh(app, token);
      return r.status === 200 && r.body.hub_id === hubId ? null : `${r.status} ${r.text.slice(0, 200)}`;
    });
    expect(refreshed.filter((x) => x !== null)).toEqual([]);

    // Every acknowledged access token is still valid: its metadata, and as a bearer on a CRM call.
    const checked = await inPool([...accessTokens], 8, async ([token, hubId]) => {
      const info = await fx.admin('GET', `/oauth/v1/access-tokens/${token}`);
      if (info.status !== 200 || info.body.hub_id !== hubId) return `metadata ${info.status}`;
      const call = await fx.bearer('GET', '/crm/v3/limits/calculated-properties', token);
      return call.status === 200 ? null : `bearer ${call.status} ${call.text.slice(0, 200)}`;
    });
    expect(checked.filter((x) => x !== null)).toEqual([]);
    expect(accessTokens.size).toBeGreaterThanOrEqual(KILL_AFTER);
    process.stdout.write(
      `kill -9 under load: ${acknowledged} acknowledged before the kill (${cut} requests cut), ` +
        `${refreshTokens.size} refresh tokens and ${accessTokens.size} access tokens verified after restart\n`,
    );
    await stopService(running, 'SIGTERM');
    expect(running.output()).not.toMatch(/"level":50|fatal/);
    running = undefined;
  }, 300_000);
});
