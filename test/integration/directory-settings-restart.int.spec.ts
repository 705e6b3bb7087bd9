import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DirectoryQueries } from '../../src/directory/directory.queries';
import { ProjectionRunner } from '../../src/platform/projections/projection-runner';
import { startTestApp } from '../support/test-app';

/**
 * Account settings and developer API keys live in the event history: after a restart, and after
 * the directory read model is rebuilt from zero, the same settings and the same working key.
 */
describe('directory settings and developer keys survive a restart and a rebuild', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'directory-restart-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('restores them from the events', async () => {
    const first = await startTestApp({ dataDir });
    const created = await first.admin('POST', '/admin/v1/accounts', {
      domain: 'restart-settings.example.com',
      tier: 'starter',
      hublet: 'eu1',
      timeZone: 'Europe/Madrid',
      additionalCurrencies: ['USD'],
    });
    expect(created.statusCode).toBe(201);
    const hubId = (created.json() as { hubId: number }).hubId;
    expect((await first.admin('PATCH', `/admin/v1/accounts/${hubId}`, { companyCurrency: 'CHF' })).statusCode).toBe(
      200,
    );
    const retired = (await first.admin('POST', `/admin/v1/accounts/${hubId}/developer-api-keys`)).json() as {
      developerApiKey: string;
    };
    const key = (await first.admin('POST', `/admin/v1/accounts/${hubId}/developer-api-keys`)).json() as {
      keyId: string;
      developerApiKey: string;
    };
    await first.close({ keepData: true });

    const second = await startTestApp({ dataDir, clock: first.clock });
    try {
      const directory = second.app.get(DirectoryQueries);
      const expectRestored = () => {
        expect(directory.getAccountSettings(hubId)).toEqual({
          accountType: 'STANDARD',
          timeZone: 'Europe/Madrid',
          companyCurrency: 'CHF',
          additionalCurrencies: ['USD'],
        });
        const hash = createHash('sha256').update(key.developerApiKey).digest('hex');
        expect(directory.findDeveloperApiKeyByHash(hash)).toMatchObject({ hubId, keyId: key.keyId });
        expect(directory.getDeveloperApiKey(hubId)).toMatchObject({ keyId: key.keyId });
        const retiredHash = createHash('sha256').update(retired.developerApiKey).digest('hex');
        expect(directory.findDeveloperApiKeyByHash(retiredHash)).toBeNull();
      };
      expectRestored();
      await second.app.get(ProjectionRunner).rebuild('directory');
      expectRestored();
    } finally {
      await second.close();
    }
  });
});
