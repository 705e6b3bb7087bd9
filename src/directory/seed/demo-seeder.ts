import { Inject, Injectable, Logger } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { APP_CONFIG, AppConfig } from '../../platform/config/config';
import { Tier } from '../../platform/tiers';
import type { CommandContext } from '../../platform/events/envelope';
import { AdminKey } from '../../platform/security/admin-key';
import { CreateAccount } from '../application/commands/create-account';
import { CreateUser } from '../application/commands/create-user';
import { RegisterApp } from '../application/commands/register-app';
import { DirectoryQueries } from '../directory.queries';
import type { AccountSettingsPatch } from '../domain/account-settings';

interface SeedAccount extends AccountSettingsPatch {
  domain: string;
  tier: Tier;
  hublet?: string;
}

export interface DemoSeed {
  developerAccount: SeedAccount;
  customerAccounts: SeedAccount[];
  user: { email: string; password: string };
  app: {
    name: string;
    clientId: string;
    clientSecret: string;
    redirectUrls: string[];
    requiredScopes: string[];
    optionalScopes: string[];
  };
}

export const DEMO_SEED_FILE = join(__dirname, '..', '..', '..', 'seed', 'demo.json');

/** Applies seed/demo.json through the ordinary commands on the CommandBus; whatever exists already is left alone. */
@Injectable()
export class DemoSeeder {
  private readonly logger = new Logger('DemoSeed');
  constructor(
    private readonly commandBus: CommandBus,
    private readonly queries: DirectoryQueries,
    private readonly adminKey: AdminKey,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  static load(file = DEMO_SEED_FILE): DemoSeed {
    return JSON.parse(readFileSync(file, 'utf8')) as DemoSeed;
  }

  async apply(seed: DemoSeed = DemoSeeder.load()): Promise<{ hubIds: number[]; appId: number; userId: number }> {
    const ctx: CommandContext = { correlationId: 'demo-seed', causationId: null, actor: 'system:demo-seed' };
    const account = async ({ domain, tier, hublet, ...settings }: SeedAccount) =>
      this.queries.findAccountByDomain(domain) ??
      (await this.commandBus.execute(new CreateAccount(domain, tier, hublet ?? 'na1', ctx, settings)));
    const developer = await account(seed.developerAccount);
    const customers = [];
    for (const c of seed.customerAccounts) customers.push(await account(c));
    const hubIds = [developer.hubId, ...customers.map((c) => c.hubId)];

    const user =
      this.queries.findUserCredentialsByEmail(seed.user.email) ??
      (await this.commandBus.execute(new CreateUser(seed.user.email, seed.user.password, hubIds, ctx)));

    const app =
      this.queries.findAppByClientId(seed.app.clientId) ??
      (
        await this.commandBus.execute(
          new RegisterApp(
            {
              developerHubId: developer.hubId,
              name: seed.app.name,
              redirectUrls: seed.app.redirectUrls,
              requiredScopes: seed.app.requiredScopes,
              optionalScopes: seed.app.optionalScopes,
              fixedCredentials: { clientId: seed.app.clientId, clientSecret: seed.app.clientSecret },
            },
            ctx,
          ),
        )
      ).app;
    this.logger.log(`demo seed applied: app ${app.appId}, accounts ${hubIds.join(', ')}, user ${user.userId}`);
    return { hubIds, appId: app.appId, userId: user.userId };
  }

  /** What a person needs to try the demo. Printed to stdout once, not written to the JSON log. */
  banner(seed: DemoSeed = DemoSeeder.load()): string {
    const app = this.queries.findAppByClientId(seed.app.clientId);
    const accounts = [seed.developerAccount, ...seed.customerAccounts]
      .map((a) => this.queries.findAccountByDomain(a.domain))
      .filter((a) => a !== null)
      .map((a) => `${a.hubId} ${a.domain} (${a.tier}, ${a.hublet})`);
    return [
      '',
      '  HubSpot public-app service — demo',
      `  Listening on     ${this.config.publicUrl}   (OpenAPI: ${this.config.publicUrl}/docs)`,
      `  Install URL      ${app?.installUrl ?? '(app missing)'}`,
      `  Sign in as       ${seed.user.email} / ${seed.user.password}`,
      `  App              ${app?.appId ?? '?'}  client_id ${seed.app.clientId}`,
      `                   client_secret ${seed.app.clientSecret}`,
      `  Accounts         ${accounts.join('\n                   ')}`,
      `  Admin API key    ${this.adminKey.generated ? this.adminKey.value : '(from ADMIN_API_KEY)'}`,
      '',
    ].join('\n');
  }
}
