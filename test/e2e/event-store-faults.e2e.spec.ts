import type Database from 'better-sqlite3';
import { EventEmitter } from 'node:events';
import { copyFileSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { installProcessFaultHandlers, processFaults } from '../../src/platform/core/process-faults';
import { EventStoreDbEventStore } from '../../src/platform/event-store/eventstoredb-event-store';
import { READ_MODEL_DB } from '../../src/platform/projections/read-model-database';
import { exchangeCode, installCode, oauthFixture, refresh } from '../support/oauth-fixtures';
import { expectOAuthSchema } from '../support/oauth-schema';
import { accessDenied, deadlineExceeded, ScriptedEsdbClient } from '../support/scripted-esdb-client';
import { createAccount, startTestApp, type TestApp } from '../support/test-app';

/*
 * The whole service on the EventStoreDB adapter over the scripted client stand-in: what a lost
 * reply, a refused subscription, a store swapped under the read models and a stray fault do to
 * requests and readiness.
 */

const esdb = (client = new ScriptedEsdbClient()) => ({
  client,
  store: new EventStoreDbEventStore(client, {
    credentials: { username: 'u', password: 'p' },
    appendRetryDelayMs: 1,
    backoff: { initialMs: 1, maxMs: 4 },
  }),
});

describe('the service on EventStoreDB under faults', () => {
  let dir: string;
  const apps: TestApp[] = [];
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'hs-esdb-faults-'))));
  afterEach(async () => {
    for (const t of apps.splice(0)) await t.close({ keepData: true });
    rmSync(dir, { recursive: true, force: true });
  });
  const start = async (options: Parameters<typeof startTestApp>[0] = {}) => {
    const t = await startTestApp({ dataDir: dir, ...options });
    apps.push(t);
    return t;
  };

  it('2. a code exchange whose redemption committed but whose reply was lost answers with tokens, not as a replay', async () => {
    const { client, store } = esdb();
    const t = await start({ eventStore: store });
    const f = await oauthFixture(t);
    const { code } = await installCode(t, f);
    client.streamFaults.push({
      match: (streamId) => streamId.startsWith('oauth.auth-code-'),
      step: { kind: 'commit-then-fail', error: deadlineExceeded() },
    });
    const r = await exchangeCode(t, f, code);
    expect(r.statusCode).toBe(200);
    expectOAuthSchema('TokenResponseIF', r.json());
    expect(client.streamFaults).toEqual([]); // the lost reply did happen
    // Its refresh token was handed out and is not revoked.
    const refreshed = await refresh(t, f, r.json<{ refresh_token: string }>().refresh_token);
    expect(refreshed.statusCode).toBe(200);
  });

  it('2. an append whose outcome stays unknown answers 503 with Retry-After and HubSpot error body', async () => {
    const { client, store } = esdb();
    const t = await start({ eventStore: store });
    for (let i = 0; i < 4; i++) client.appendScript.push({ kind: 'fail', error: deadlineExceeded() });
    const r = await t.admin('POST', '/admin/v1/accounts', { domain: 'unknown-outcome.example.com', tier: 'starter' });
    expect(r.statusCode).toBe(503);
    expect(r.headers['retry-after']).toBe('5');
    expect(r.json()).toMatchObject({ status: 'error', category: 'SERVICE_UNAVAILABLE' });
    expect(r.json().correlationId).toEqual(expect.any(String));
  });

  it('3. read models kept for another store are rebuilt from the store now in use', async () => {
    const first = await start();
    const { hubId } = await createAccount(first);
    expect((await first.admin('GET', `/admin/v1/accounts/${hubId}`)).statusCode).toBe(200);
    const { position } = (await first.admin('GET', '/admin/v1/events?limit=1')).json().results[0];
    await first.close({ keepData: true });
    apps.length = 0;

    // The same DATA_DIR, now on EventStoreDB: the SQLite positions mean nothing there.
    const second = await start({ eventStore: esdb().store });
    expect((await second.admin('GET', `/admin/v1/accounts/${hubId}`)).statusCode).toBe(404);
    expect((await second.admin('GET', '/health/ready')).statusCode).toBe(200);
    const foreign = await second.admin('GET', `/admin/v1/events?after=${position + 1}`);
    expect(foreign.statusCode).toBe(400);
    expect(foreign.json()).toMatchObject({ category: 'VALIDATION_ERROR' });
  });

  it('3. read models first built on an empty store are kept on the next start', async () => {
    const first = await start();
    await createAccount(first);
    await first.close({ keepData: true });
    apps.length = 0;
    const second = await start();
    // Rebuilding would have set every projection's checkpoint back to 0 at start.
    const positions = second.app
      .get<Database.Database>(READ_MODEL_DB)
      .prepare("SELECT position FROM projection_checkpoints WHERE name NOT LIKE '%reactor%'")
      .all() as Array<{ position: number }>;
    expect(positions.length).toBeGreaterThan(0);
    for (const { position } of positions) expect(position).toBeGreaterThan(0);
  });

  it('3. read models of a recreated SQLite store are rebuilt too', async () => {
    const first = await start();
    const { hubId } = await createAccount(first);
    await first.close({ keepData: true });
    apps.length = 0;
    // Another store with events of its own replaces the events file.
    const other = mkdtempSync(join(tmpdir(), 'hs-esdb-faults-other-'));
    try {
      const elsewhere = await startTestApp({ dataDir: other });
      await createAccount(elsewhere);
      await elsewhere.close({ keepData: true });
      for (const file of readdirSync(dir).filter((f) => f.startsWith('events.sqlite'))) rmSync(join(dir, file));
      for (const file of readdirSync(other).filter((f) => f.startsWith('events.sqlite'))) {
        copyFileSync(join(other, file), join(dir, file));
      }
    } finally {
      rmSync(other, { recursive: true, force: true });
    }
    const second = await start();
    expect((await second.admin('GET', `/admin/v1/accounts/${hubId}`)).statusCode).toBe(404);
  });

  it('4. a subscription the server refuses stops the read models and fails readiness with the reason', async () => {
    const { client, store } = esdb();
    for (let i = 0; i < 20; i++) client.subscribeFailures.push(accessDenied('Access denied to $all'));
    const t = await start({ eventStore: store });
    let ready = await t.admin('GET', '/health/ready');
    // Every projection and reactor fails on its first subscription; none retries.
    for (let turns = 0; ready.statusCode === 200 && turns < 1000; turns++) {
      await new Promise((resolve) => setImmediate(resolve));
      ready = await t.admin('GET', '/health/ready');
    }
    expect(ready.statusCode).toBe(503);
    const reasons = Object.values(ready.json().error.projections.reasons as Record<string, string>);
    expect(reasons.length).toBeGreaterThan(0);
    for (const reason of reasons) expect(reason).toContain('Access denied to $all');
    // Each feed subscribed once: none retried the refusal.
    expect(client.subscribeCalls.length).toBe(20 - client.subscribeFailures.length);
  });

  it('1. a fault nothing caught is logged and fails readiness instead of ending the process', async () => {
    const t = await start();
    expect((await t.admin('GET', '/health/ready')).statusCode).toBe(200);
    const fakeProcess = new EventEmitter();
    const lines: string[] = [];
    installProcessFaultHandlers(fakeProcess, (line) => lines.push(line));
    fakeProcess.emit('unhandledRejection', new TypeError('undefined is not iterable'));
    expect(lines[0]).toMatch(
      /^unhandledRejection: undefined is not iterable; the service now reports itself not ready/,
    );
    const ready = await t.admin('GET', '/health/ready');
    expect(ready.statusCode).toBe(503);
    expect(ready.json().error.process).toEqual({
      status: 'down',
      reason: 'unhandledRejection: undefined is not iterable',
    });
    expect(processFaults.reason()).toBe('unhandledRejection: undefined is not iterable');
  });
});
