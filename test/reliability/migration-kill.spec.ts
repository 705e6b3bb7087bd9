import Database from 'better-sqlite3';
import { randomBytes, randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { installStream, OAuthEventType } from '../../src/oauth/domain/oauth-events';
import { EVENT_STORE, type EventStore } from '../../src/platform/event-store/event-store.port';
import { settle } from '../support/cards-fixtures';
import { mintCardsToken } from '../support/cards-tokens';
import { HttpFixtures } from '../support/reliability-fixtures';
import { ensureBuilt, startReliabilityService, stopService, type RunningService } from '../support/reliability-service';
import { ManualClock } from '../support/manual-clock';
import { createAccount, createApp, startTestApp, TEST_ADMIN_KEY, type TestApp } from '../support/test-app';

/**
 * The app installed in many accounts at once: the same oauth.AppInstalled event, on the same
 * install stream, as a first install through the install page writes (appended directly: 30,000
 * installs through the page or the admin API would take minutes).
 */
async function recordFirstInstalls(t: TestApp, appId: number, hubIds: number[]): Promise<void> {
  const store = t.app.get<EventStore>(EVENT_STORE);
  const install = (hubId: number) =>
    store.append(
      installStream(appId, hubId),
      [
        {
          type: OAuthEventType.AppInstalled,
          data: {
            appId,
            hubId,
            installId: randomUUID(),
            installingUserId: 1,
            scopes: ['oauth'],
            installedAt: t.clock.now(),
          },
          metadata: {
            eventId: randomUUID(),
            correlationId: randomUUID(),
            causationId: null,
            actor: 'user:1',
            occurredAt: t.clock.now(),
          },
        },
      ],
      'no_stream',
    );
  for (let i = 0; i < hubIds.length; i += 500) await Promise.all(hubIds.slice(i, i + 500).map(install));
}

/**
 * The cards migration in the real process, killed with SIGKILL half-way through, then restarted
 * on the same DATA_DIR: it resumes from the event history and ends with exact counts, every
 * account migrated exactly once (one PortalCardMigrated each, the app card once in each view).
 */
describe('reliability: a migration killed half-way completes after restart', () => {
  const ACCOUNTS = 30_000;
  let dataDir = '';
  let running: RunningService | undefined;
  const signingKeys = `rel:${randomBytes(32).toString('base64')}`;

  beforeAll(() => ensureBuilt(), 180_000);
  afterAll(async () => {
    if (running) await stopService(running, 'SIGKILL');
  });

  it('resumes, migrates each account once, counts exact', async () => {
    // Prepared in-process (faster than 30,000 HTTP calls): developer account, app, a legacy card
    // on contacts and deals, an app card, and the app installed in 30,000 accounts.
    const prep = await startTestApp({
      clock: new ManualClock(Date.now()),
      env: { TOKEN_SIGNING_KEYS: signingKeys },
    });
    dataDir = prep.dataDir;
    const dev = await createAccount(prep);
    const appId = (await createApp(prep, { developerHubId: dev.hubId })).appId;
    const token = mintCardsToken(prep, { hubId: dev.hubId, appId }); // valid 30 min on the real clock
    const legacy = await prep.inject({
      method: 'POST',
      url: `/crm/v3/extensions/cards-dev/${appId}`,
      headers: { authorization: `Bearer ${token}` },
      payload: {
        title: 'Legacy',
        fetch: {
          targetUrl: 'https://example.com/f',
          objectTypes: [
            { name: 'contacts', propertiesToSend: [] },
            { name: 'deals', propertiesToSend: [] },
          ],
        },
        display: { properties: [] },
        actions: { baseUrls: [] },
      },
    });
    expect(legacy.statusCode).toBe(201);
    const legacyId = legacy.json().id as string;
    const appCard = await prep.admin('POST', `/admin/v1/apps/${appId}/app-cards`, {
      title: 'App card',
      objectTypes: ['contacts', 'deals'],
    });
    expect(appCard.statusCode).toBe(201);
    const appCardId = appCard.json().id as string;
    const hubIds = Array.from({ length: ACCOUNTS }, (_, i) => 7_000_000 + i);
    await recordFirstInstalls(prep, appId, hubIds);
    await settle(prep);
    await prep.close({ keepData: true });

    const env = {
      DATA_DIR: dataDir,
      SEED: 'none',
      ADMIN_API_KEY: TEST_ADMIN_KEY,
      TOKEN_SIGNING_KEYS: signingKeys,
    };
    running = await startReliabilityService(env);
    let fx = new HttpFixtures(running.url, TEST_ADMIN_KEY);
    const migrate = () =>
      fx.bearer('POST', `/crm/v3/extensions/cards-dev/${appId}/views/migrate`, token, {
        legacyCrmCardId: legacyId,
        appCardId,
        allowDuplicateAppCardIds: false,
      });
    const started = await migrate();
    expect(started.status).toBe(200);
    expect(started.body).toMatchObject({ totalPortalCount: ACCOUNTS, startedAt: expect.any(Number) });

    // Watch progress through the admin read model (not rate limited) and kill between 15 % and
    // the end; bounded by a deadline so a stuck migration fails instead of hanging.
    const progress = async () =>
      (
        (await fx.admin('GET', `/admin/v1/apps/${appId}/card-migrations`)).body.results as Array<{
          migratedPortalCount: number;
          remainingPortalCount: number;
          endedAt: number | null;
          totalPortalCount: number;
        }>
      )[0]!;
    const deadline = Date.now() + 120_000;
    let seenAtKill = 0;
    for (;;) {
      const p = await progress();
      expect(p.endedAt).toBeNull(); // the kill must land half-way
      if (p.migratedPortalCount >= ACCOUNTS * 0.15) {
        running.child.kill('SIGKILL');
        seenAtKill = p.migratedPortalCount;
        break;
      }
      if (Date.now() > deadline) throw new Error(`migration made no progress: ${JSON.stringify(p)}`);
    }
    await stopService(running, 'SIGKILL');
    const events = new Database(join(dataDir, 'events.sqlite'), { readonly: true });
    const migratedAtKill = (
      events.prepare("SELECT COUNT(*) AS n FROM events WHERE type = 'cards.PortalCardMigrated'").get() as { n: number }
    ).n;
    events.close();
    expect(migratedAtKill).toBeGreaterThanOrEqual(seenAtKill);
    expect(migratedAtKill).toBeLessThan(ACCOUNTS); // really half-way

    running = await startReliabilityService(env);
    fx = new HttpFixtures(running.url, TEST_ADMIN_KEY);
    const restartDeadline = Date.now() + 120_000;
    let done = await progress();
    while (done.endedAt === null) {
      if (Date.now() > restartDeadline) throw new Error(`migration did not resume: ${JSON.stringify(done)}`);
      done = await progress();
    }
    expect(done).toMatchObject({ totalPortalCount: ACCOUNTS, migratedPortalCount: ACCOUNTS, remainingPortalCount: 0 });
    const again = await migrate();
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ totalPortalCount: ACCOUNTS, remainingPortalCount: 0, endedAt: done.endedAt });
    await stopService(running, 'SIGTERM');
    const output = running.output();
    running = undefined;
    expect(output).toContain(`resuming migration of legacy card ${legacyId}`);

    // Exactly once, from the audit trail and from the views read model.
    const store = new Database(join(dataDir, 'events.sqlite'), { readonly: true });
    const perHub = store
      .prepare(
        "SELECT json_extract(data, '$.hubId') AS hub, COUNT(*) AS n FROM events WHERE type = 'cards.PortalCardMigrated' GROUP BY hub",
      )
      .all() as Array<{ hub: number; n: number }>;
    expect(perHub.length).toBe(ACCOUNTS);
    expect(perHub.filter((r) => r.n !== 1)).toEqual([]);
    expect(new Set(perHub.map((r) => r.hub))).toEqual(new Set(hubIds));
    const completed = store
      .prepare("SELECT COUNT(*) AS n FROM events WHERE type = 'cards.MigrationCompleted'")
      .get() as { n: number };
    expect(completed.n).toBe(1);
    store.close();

    const views = new Database(join(dataDir, 'readmodels.sqlite'), { readonly: true });
    const count = (sql: string, ...args: unknown[]) => (views.prepare(sql).get(...args) as { n: number }).n;
    expect(count("SELECT COUNT(*) AS n FROM cards_view_items WHERE kind = 'legacy' AND card_id = ?", legacyId)).toBe(0);
    expect(count("SELECT COUNT(*) AS n FROM cards_view_items WHERE kind = 'app' AND card_id = ?", appCardId)).toBe(
      ACCOUNTS * 2,
    );
    expect(
      count(
        'SELECT COUNT(*) AS n FROM (SELECT hub_id, view FROM cards_view_items WHERE card_id = ? GROUP BY hub_id, view HAVING COUNT(*) > 1)',
        appCardId,
      ),
    ).toBe(0);
    views.close();
    process.stdout.write(
      `migration: killed with ${migratedAtKill} of ${ACCOUNTS} accounts migrated; completed after restart, each once\n`,
    );
  }, 400_000);

  afterAll(() => {
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });
});
