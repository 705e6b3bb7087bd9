import { Inject, Injectable } from '@nestjs/common';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { APP_CONFIG, AppConfig } from '../../platform/config/config';
import { Tier } from '../../platform/tiers';
import type { CommandContext } from '../../platform/events/envelope';
import { AdminKey } from '../../platform/security/admin-key';
import { DEMO_SEED_SOURCE, Fixtures } from '../fixtures/fixtures';
import { type FixturesDocument, parseFixtures } from '../fixtures/fixtures-file';
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

/** Applies seed/demo.json as a fixtures document (Fixtures): the ordinary commands, idempotent. */
@Injectable()
export class DemoSeeder {
  constructor(
    private readonly fixtures: Fixtures,
    private readonly queries: DirectoryQueries,
    private readonly adminKey: AdminKey,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  static load(file = DEMO_SEED_FILE): DemoSeed {
    return JSON.parse(readFileSync(file, 'utf8')) as DemoSeed;
  }

  /** The demo as a fixtures document: one way to declare and apply directory records (Fixtures). */
  static asFixtures(seed: DemoSeed): FixturesDocument {
    const account = ({ domain, tier, hublet, ...settings }: SeedAccount) => ({
      domain,
      tier,
      hublet: hublet ?? 'na1',
      ...(Object.keys(settings).length > 0 ? { settings } : {}),
    });
    const accounts = [seed.developerAccount, ...seed.customerAccounts].map(account);
    return {
      accounts,
      users: [{ ...seed.user, accounts: accounts.map((a) => a.domain) }],
      apps: [{ ...seed.app, developerAccount: seed.developerAccount.domain }],
      installs: [],
    };
  }

  async apply(seed: DemoSeed = DemoSeeder.load()): Promise<{ hubIds: number[]; appId: number; userId: number }> {
    const ctx: CommandContext = { correlationId: 'demo-seed', causationId: null, actor: 'system:demo-seed' };
    const doc = parseFixtures(JSON.stringify(DemoSeeder.asFixtures(seed)), DEMO_SEED_SOURCE);
    const applied = await this.fixtures.apply(doc, ctx, DEMO_SEED_SOURCE);
    const hubIds = doc.accounts.map((a) => applied.hubIds[a.domain]!);
    return { hubIds, appId: applied.appIds[seed.app.clientId]!, userId: applied.userIds[doc.users[0]!.email]! };
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
