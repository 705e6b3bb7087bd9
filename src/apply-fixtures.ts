import type { INestApplicationContext } from '@nestjs/common';
import { DemoRecordsSeeder } from './crm-records';
import { type AppliedFixtures, Fixtures, FixturesError, type FixturesDocument } from './directory';
import { InstallFixtures } from './oauth';
import type { CommandContext } from './platform/events/envelope';
import { HubSpotError } from './platform/errors/hubspot-error';

/**
 * A fixtures file (FIXTURES, docs/fixtures.md) applied at start: the directory's records (accounts,
 * users, apps, developer keys) by the directory's Fixtures, then the installs by the OAuth module's
 * InstallFixtures, with the ids the first step resolved, then HubSpot's sample records in the accounts
 * that want them (CRM records). Three modules own the parts, so the composition root joins them;
 * each applies its part through its own commands.
 */
export async function applyFixtures(
  app: INestApplicationContext,
  doc: FixturesDocument,
  source: string,
  ctx: CommandContext = { correlationId: 'fixtures', causationId: null, actor: 'system:fixtures' },
): Promise<AppliedFixtures & { installs: string[] }> {
  const applied = await app.get(Fixtures).apply(doc, ctx, source);
  const declared = doc.installs.map((n) => ({
    appId: applied.appIds[n.app]!,
    hubId: applied.hubIds[n.account]!,
    userId: applied.userIds[n.user]!,
  }));
  const installs = await app
    .get(InstallFixtures)
    .apply(declared, ctx, source)
    .catch((error: unknown) => {
      if (error instanceof HubSpotError) throw new FixturesError(source, [`installs: ${error.message}`]);
      throw error;
    });
  // A new HubSpot account has sample records; HubSpot's quickstart shows the first contact it finds.
  const samples = doc.accounts.filter((a) => a.sampleRecords !== false).map((a) => applied.hubIds[a.domain]!);
  await app.get(DemoRecordsSeeder).apply(samples, DemoRecordsSeeder.hubSpotSamples(), 'HubSpot sample records');
  return { ...applied, installs };
}
