import type Database from 'better-sqlite3';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { HistoryArchiveService } from '../../src/ops';
import { ArchiveFiles } from '../../src/platform/archive/archive-files';
import { exportEvents, parseExportRange } from '../../src/platform/archive/audit-export';
import { EVENT_STORE, type EventStore } from '../../src/platform/event-store/event-store.port';
import { ProjectionRunner } from '../../src/platform/projections/projection-runner';
import { READ_MODEL_DB } from '../../src/platform/projections/read-model-database';
import { allEvents, installAndExchange, oauthFixture, refresh } from '../support/oauth-fixtures';
import { readModelDigests } from '../support/reliability-service';
import { startTestApp, type TestApp } from '../support/test-app';

const DAY = 86_400_000;

describe('audit retention: archives of ended streams (AUDIT_RETENTION_DAYS=7)', () => {
  let t: TestApp;
  beforeEach(async () => {
    t = await startTestApp({ env: { AUDIT_RETENTION_DAYS: '7', ARCHIVE_BATCH_EVENTS: '3' } });
  }, 60_000);
  afterEach(() => t.close());

  it('a refresh token issued before the window still works after its old access-token events are archived', async () => {
    const f = await oauthFixture(t);
    const tokens = await installAndExchange(t, f);
    for (let i = 0; i < 4; i++) {
      t.clock.advance(30 * 60_000);
      expect((await refresh(t, f, tokens.refresh_token)).statusCode).toBe(200);
    }
    const before = await allEvents(t);
    const accessTokenEvents = before.filter((e) => e.streamId.startsWith('oauth.access-token-'));
    const codeEvents = before.filter((e) => e.streamId.startsWith('oauth.auth-code-'));
    expect(accessTokenEvents).toHaveLength(5);
    expect(codeEvents).toHaveLength(2);

    const archive = t.app.get(HistoryArchiveService);
    // Inside the window nothing moves.
    t.clock.advance(6 * DAY);
    expect(await archive.runUntilCaughtUp()).toBe(0);

    t.clock.advance(2 * DAY);
    await t.app.get(ProjectionRunner).waitForHead();
    expect(await archive.runUntilCaughtUp()).toBe(7);
    const after = await allEvents(t);
    expect(after.filter((e) => e.streamId.startsWith('oauth.access-token-'))).toEqual([]);
    expect(after.filter((e) => e.streamId.startsWith('oauth.auth-code-'))).toEqual([]);
    // Batches of 3 whole streams' events at most (a code stream holds 2): each recorded once.
    const recorded = after.filter((e) => e.type === 'ops.HistoryArchived');
    expect(recorded.map((e) => (e.data as { count: number }).count).reduce((a, b) => a + b, 0)).toBe(7);
    // Everything else (install, refresh token, directory) is still live.
    const kept = before.filter((e) => !accessTokenEvents.includes(e) && !codeEvents.includes(e)).map((e) => e.position);
    expect(after.map((e) => e.position).filter((p) => kept.includes(p))).toEqual(kept);

    const r = await refresh(t, f, tokens.refresh_token);
    expect(r.statusCode).toBe(200);
    const bearer = await t.inject({
      method: 'GET',
      url: `/oauth/v1/access-tokens/${(r.json() as { access_token: string }).access_token}`,
    });
    expect(bearer.statusCode).toBe(200);

    // The archive holds exactly the archived events; live + archive is the whole history, once.
    expect(new ArchiveFiles(t.dataDir).verify()).toEqual({ files: 1, events: 7, problems: [] });
    const exported = [...exportEvents(t.dataDir, parseExportRange([]))].map(
      (l) => JSON.parse(l) as { position: number; source: string; type: string },
    );
    const all = [...before, ...(await allEvents(t)).filter((e) => e.position > before.at(-1)!.position)];
    expect(exported.map((e) => e.position)).toEqual(all.map((e) => e.position));
    expect(exported.filter((e) => e.source === 'archive').map((e) => e.position)).toEqual(
      [...accessTokenEvents, ...codeEvents].map((e) => e.position).sort((a, b) => a - b),
    );
    const ranged = [...exportEvents(t.dataDir, parseExportRange(['--from', '3', '--to', '12']))];
    expect(ranged.map((l) => (JSON.parse(l) as { position: number }).position)).toEqual(
      all.map((e) => e.position).filter((p) => p >= 3 && p <= 12),
    );
  }, 60_000);

  it('a wall clock set 100 days ahead archives no token that has not really expired; revoking it then takes effect', async () => {
    const f = await oauthFixture(t);
    const tokens = await installAndExchange(t, f);
    const bearer = () =>
      t.inject({
        method: 'GET',
        url: '/crm/v3/limits/calculated-properties',
        headers: { authorization: `Bearer ${tokens.access_token}` },
      });
    expect((await bearer()).statusCode).not.toBe(401);
    await t.app.get(ProjectionRunner).waitForHead();
    const saved = t.clock.now();
    t.clock.set(saved + 100 * DAY); // a forward step of the host's clock, not elapsed time
    expect(await t.app.get(HistoryArchiveService).runUntilCaughtUp()).toBe(0);
    t.clock.set(saved); // corrected
    expect((await allEvents(t)).filter((e) => e.streamId.startsWith('oauth.access-token-'))).toHaveLength(1);
    const revoked = await t.inject({
      method: 'POST',
      url: '/oauth/2026-03/token/revoke',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({
        client_id: f.clientId,
        client_secret: f.clientSecret,
        token: tokens.access_token,
      }).toString(),
    });
    expect(revoked.statusCode).toBe(200);
    expect((await bearer()).statusCode).toBe(401);
  });

  it('GET /admin/v1/events says which part of the requested range was archived', async () => {
    const f = await oauthFixture(t);
    const tokens = await installAndExchange(t, f);
    await refresh(t, f, tokens.refresh_token);
    const plain = await t.admin('GET', '/admin/v1/events?after=0&limit=1000');
    expect(plain.json()).not.toHaveProperty('archived');
    t.clock.advance(8 * DAY);
    await t.app.get(ProjectionRunner).waitForHead();
    await t.app.get(HistoryArchiveService).runUntilCaughtUp();
    const r = await t.admin('GET', '/admin/v1/events?after=0&limit=1000');
    expect(r.statusCode).toBe(200);
    const body = r.json() as {
      results: unknown[];
      archived: { message: string; segments: Array<{ file: string; count: number }> };
    };
    expect(body.archived.message).toMatch(/audit archive/);
    expect(body.archived.segments.reduce((n, s) => n + s.count, 0)).toBe(4);
    // A page entirely after the archived positions says nothing about the archive.
    const head = await t.app.get<EventStore>(EVENT_STORE).headPosition();
    expect((await t.admin('GET', `/admin/v1/events?after=${head - 1}`)).json()).not.toHaveProperty('archived');
  }, 60_000);

  it('every read model rebuilt from the live store after an archive run equals the live one', async () => {
    const f = await oauthFixture(t);
    const tokens = await installAndExchange(t, f);
    for (let i = 0; i < 3; i++) await refresh(t, f, tokens.refresh_token);
    // A revoked access token's stream holds an event a read model applies: it stays live.
    const revoked = (await refresh(t, f, tokens.refresh_token)).json() as { access_token: string };
    const rv = await t.inject({
      method: 'POST',
      url: '/oauth/2026-03/token/revoke',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({
        token: revoked.access_token,
        client_id: f.clientId,
        client_secret: f.clientSecret,
      }).toString(),
    });
    expect(rv.statusCode).toBe(200);
    t.clock.advance(8 * DAY);
    const runner = t.app.get(ProjectionRunner);
    await runner.waitForHead();
    expect(await t.app.get(HistoryArchiveService).runUntilCaughtUp()).toBe(6);
    expect((await allEvents(t)).filter((e) => e.type === 'oauth.AccessTokenRevoked')).toHaveLength(1);
    await runner.waitForHead();
    const db = t.app.get<Database.Database>(READ_MODEL_DB);
    // The console's audit index points into the live history: it keeps the rows of archived
    // positions (they point at no event, its readers leave them out); a rebuild indexes what is live.
    const INDEX = 'console_audit_index';
    const indexRows = () =>
      (db.prepare(`SELECT subject, position FROM ${INDEX}`).all() as Array<{ subject: string; position: number }>).map(
        (r) => `${r.subject}@${r.position}`,
      );
    const liveIndex = indexRows();
    const { [INDEX]: _liveIndexDigest, ...live } = readModelDigests(db);
    for (const name of runner.projectionNames()) {
      await runner.rebuild(name);
      const { [INDEX]: _indexDigest, ...tables } = readModelDigests(db);
      expect({ rebuilt: name, tables }).toEqual({ rebuilt: name, tables: live });
    }
    const rebuiltIndex = indexRows();
    expect(liveIndex).toEqual(expect.arrayContaining(rebuiltIndex));
    const stale = liveIndex.filter((r) => !rebuiltIndex.includes(r)).map((r) => Number(r.split('@')[1]));
    expect(stale.length).toBeGreaterThan(0);
    expect(await t.app.get<EventStore>(EVENT_STORE).readAt!(stale)).toEqual([]);
  }, 60_000);

  it('audit verify finds a flipped byte in an archive file', async () => {
    const f = await oauthFixture(t);
    const tokens = await installAndExchange(t, f);
    await refresh(t, f, tokens.refresh_token);
    t.clock.advance(8 * DAY);
    await t.app.get(ProjectionRunner).waitForHead();
    await t.app.get(HistoryArchiveService).runUntilCaughtUp();
    const files = new ArchiveFiles(t.dataDir);
    expect(files.verify().problems).toEqual([]);
    const [name] = Object.keys(files.manifest().files);
    const path = join(files.dir, name!);
    const bytes = readFileSync(path);
    bytes[Math.floor(bytes.length / 2)]! ^= 0x01;
    writeFileSync(path, bytes);
    const result = files.verify();
    expect(result.problems).toEqual(
      expect.arrayContaining([
        `${name}: SHA-256 does not match`,
        expect.stringMatching(/SHA-256 does not match the manifest/),
      ]),
    );
  }, 60_000);
});
