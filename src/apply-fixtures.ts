import type { INestApplicationContext } from '@nestjs/common';
import { type AppliedFixtures, Fixtures, FixturesError, type FixturesDocument } from './directory';
import { InstallFixtures } from './oauth';
import type { CommandContext } from './platform/events/envelope';
import { HubSpotError } from './platform/errors/hubspot-error';

/**
 * A fixtures file (FIXTURES, docs/fixtures.md) applied at start: the directory's records (accounts,
 * users, apps, developer keys) by the directory's Fixtures, then the installs by the OAuth module's
 * InstallFixtures, with the ids the first step resolved. Two modules own the records, so the
 * composition root joins them; each applies its part through its own commands.
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
  return { ...applied, installs };
}
