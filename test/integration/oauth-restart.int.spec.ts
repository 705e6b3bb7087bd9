import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InstallQueries } from '../../src/oauth/application/install.queries';
import { OAuthModule } from '../../src/oauth/oauth.module';
import { ManualClock } from '../support/manual-clock';
import { ProjectionRunner } from '../../src/platform/projections/projection-runner';
import { installAndExchange, oauthFixture, refresh } from '../support/oauth-fixtures';
import { startTestApp } from '../support/test-app';

/** Real SQLite files: what was issued before a restart still works after it, and the read model rebuilds to the same state. */
describe('OAuth across a restart (SQLite files in a temp dir)', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'oauth-restart-'));
  const clock = new ManualClock(Date.UTC(2026, 5, 1));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('keeps installs, refresh tokens, deletions and signing keys; a projection rebuild gives the same read model', async () => {
    const first = await startTestApp({ modules: [OAuthModule], dataDir, clock });
    const f = await oauthFixture(first);
    const g = await oauthFixture(first);
    const kept = await installAndExchange(first, f);
    const deleted = await installAndExchange(first, f);
    const uninstalled = await installAndExchange(first, g);
    expect(
      (await first.inject({ method: 'DELETE', url: `/oauth/v1/refresh-tokens/${deleted.refresh_token}` })).statusCode,
    ).toBe(204);
    expect((await first.admin('DELETE', `/admin/v1/accounts/${g.hubId}/installs/${g.appId}`)).statusCode).toBe(204);
    await first.close({ keepData: true });

    const second = await startTestApp({ modules: [OAuthModule], dataDir, clock });
    try {
      expect((await refresh(second, f, kept.refresh_token)).statusCode).toBe(200);
      expect((await refresh(second, f, deleted.refresh_token)).statusCode).toBe(400);
      expect((await refresh(second, g, uninstalled.refresh_token)).statusCode).toBe(400);
      // The access token issued before the restart still verifies (the generated key was kept).
      expect(
        (await second.inject({ method: 'GET', url: `/oauth/v1/access-tokens/${kept.access_token}` })).statusCode,
      ).toBe(200);

      const queries = second.app.get(InstallQueries);
      const snapshot = () => ({
        f: queries.listInstallsOfApp(f.appId, 0, 1000),
        g: queries.listInstallsOfApp(g.appId, 0, 1000),
        account: queries.listInstallsOfAccount(f.hubId, 0, 1000),
        kept: queries.findUsableRefreshToken(sha(kept.refresh_token)),
        deleted: queries.findUsableRefreshToken(sha(deleted.refresh_token)),
      });
      const before = snapshot();
      expect(before.f).toHaveLength(1);
      expect(before.g).toEqual([]);
      expect(before.kept).not.toBeNull();
      expect(before.deleted).toBeNull();
      await second.app.get(ProjectionRunner).rebuild('oauth');
      expect(snapshot()).toEqual(before);
    } finally {
      await second.close({ keepData: true });
    }
  });
});

const sha = (s: string) => createHash('sha256').update(s).digest('hex');
