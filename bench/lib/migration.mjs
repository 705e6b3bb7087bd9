// The 100,000-account cards migration, end to end on the running service.
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { appendInstalls, HistoryWriter } from './history.mjs';
import { sampleRss } from './processes.mjs';

const CARD_SCOPES = ['oauth', 'developers-read', 'developers-write'];

/**
 * Legacy card and app card through the API; then, with the service stopped, `accounts` installs
 * appended straight to the store (AccountCreated + oauth.AppInstalled, the events the directory
 * and the install flow record); restart; then POST .../views/migrate and wait for `endedAt`.
 */
export async function migration(service, accounts) {
  await service.start();
  await service.ready();
  const setup = await service.createDeveloperSetup({ scopes: CARD_SCOPES });
  const tokens = await service.exchange(setup, await service.authorizationCode(setup));
  const auth = { authorization: `Bearer ${tokens.access_token}` };
  const appId = setup.app.appId;
  const objectTypes = ['contacts', 'companies'];
  const legacy = await service.call('POST', `/crm/v3/extensions/cards-dev/${appId}`, {
    headers: auth,
    body: {
      title: 'Legacy orders',
      fetch: {
        targetUrl: 'https://example.com/cards/orders',
        objectTypes: objectTypes.map((name) => ({ name, propertiesToSend: ['email'] })),
      },
      display: { properties: [] },
      actions: { baseUrls: [] },
    },
  });
  if (legacy.status !== 201) throw new Error(`legacy card: ${legacy.status} ${legacy.text}`);
  const appCard = await service.admin('POST', `/admin/v1/apps/${appId}/app-cards`, { title: 'Orders', objectTypes });
  await service.stop();

  const began = performance.now();
  const writer = new HistoryWriter(service.dataDir);
  appendInstalls(writer, { appId, firstHubId: 1_000_000, accounts, scopes: CARD_SCOPES, at: Date.now() });
  writer.close();
  const writeSeconds = (performance.now() - began) / 1000;
  console.log(`  (appended ${accounts} installs in ${writeSeconds.toFixed(1)} s; restarting the service)`);

  await service.start();
  const projectedMs = await service.ready();
  console.log(`  (service ready with the installs projected after ${(projectedMs / 1000).toFixed(1)} s)`);

  const body = { legacyCrmCardId: legacy.json.id, appCardId: appCard.id, allowDuplicateAppCardIds: false };
  const rss = sampleRss(service.pid);
  const profiling = Boolean(process.env.BENCH_PROFILE_DIR);
  if (profiling) process.kill(service.pid, 'SIGWINCH');
  const t0 = performance.now();
  const started = await service.call('POST', `/crm/v3/extensions/cards-dev/${appId}/views/migrate`, {
    headers: auth,
    body,
  });
  const answeredMs = performance.now() - t0;
  if (started.status !== 200) throw new Error(`migrate: ${started.status} ${started.text}`);
  // The developer's own account installed the app too (for its token): one more portal.
  const portals = accounts + 1;
  if (started.json.totalPortalCount !== portals) {
    throw new Error(`migrate counted ${started.json.totalPortalCount} portals, expected ${portals}`);
  }
  let progress;
  for (;;) {
    progress = (await service.admin('GET', `/admin/v1/apps/${appId}/card-migrations`)).results[0];
    if (progress.endedAt !== null) break;
    if (performance.now() - t0 > 600_000) throw new Error('migration did not finish within 10 minutes');
    await sleep(50);
  }
  const seconds = (performance.now() - t0) / 1000;
  const peakRss = rss.stop();
  if (profiling) process.kill(service.pid, 'SIGWINCH');
  if (progress.migratedPortalCount !== portals || progress.remainingPortalCount !== 0) {
    throw new Error(`migration ended with ${JSON.stringify(progress)}`);
  }
  // Through the public endpoint too: posting the same request again reports the finished migration.
  const again = await service.call('POST', `/crm/v3/extensions/cards-dev/${appId}/views/migrate`, {
    headers: auth,
    body,
  });
  if (again.json.remainingPortalCount !== 0 || typeof again.json.endedAt !== 'number') {
    throw new Error(`progress after the end: ${again.text}`);
  }
  const result = {
    accounts,
    seconds,
    answeredMs,
    peakRss,
    accountsPerSec: accounts / seconds,
    projectedSeconds: projectedMs / 1000,
  };
  console.log(
    `  migration of ${accounts} accounts: ${seconds.toFixed(2)} s (${result.accountsPerSec.toFixed(0)} accounts/s), first answer in ${answeredMs.toFixed(0)} ms, peak RSS ${(peakRss / 1048576).toFixed(0)} MiB`,
  );
  return result;
}
