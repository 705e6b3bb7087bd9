import { Injectable, Logger } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { DirectoryQueries } from '../../directory/directory.queries';
import type { CommandContext } from '../../platform/events/envelope';
import { ApproveInstall } from './commands/approve-install';
import { InstallQueries } from './install.queries';

/** An install a fixtures file declares, its records already resolved to ids by the directory's Fixtures. */
export interface DeclaredInstall {
  appId: number;
  hubId: number;
  userId: number;
}

/**
 * Applies a fixtures file's installs (docs/fixtures.md): an install the account does not have yet is
 * approved through ApproveInstall, as the admin API's programmatic install does (the app's first
 * redirect URL, its required and optional scopes; the code it makes is left to expire). An install
 * present already is left as it is, so the same file twice appends nothing. Answers one line per change.
 */
@Injectable()
export class InstallFixtures {
  private readonly logger = new Logger('Fixtures');

  constructor(
    private readonly commandBus: CommandBus,
    private readonly installs: InstallQueries,
    private readonly directory: DirectoryQueries,
  ) {}

  async apply(declared: DeclaredInstall[], ctx: CommandContext, source = 'fixtures'): Promise<string[]> {
    const changes: string[] = [];
    for (const { appId, hubId, userId } of declared) {
      if (this.installs.isInstalled(appId, hubId)) continue;
      const app = this.directory.getApp(appId);
      if (!app) throw new Error(`fixtures: app ${appId} is not in the read model`);
      await this.commandBus.execute(
        new ApproveInstall(
          {
            clientId: app.clientId,
            redirectUri: app.redirectUrls[0]!,
            hubId,
            userId,
            requestedScopes: app.requiredScopes,
            requestedOptionalScopes: app.optionalScopes,
          },
          ctx,
        ),
      );
      changes.push(`app ${app.clientId} installed in account ${hubId}`);
    }
    if (changes.length > 0) this.logger.log(`${source}: ${changes.join('; ')}`);
    return changes;
  }
}
