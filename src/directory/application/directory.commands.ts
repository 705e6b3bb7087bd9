import { Inject, Injectable } from '@nestjs/common';
import { randomInt, randomUUID } from 'node:crypto';
import type { Tier } from '../../config/config';
import { CLOCK, Clock } from '../../shared/clock';
import { CommandExecutor } from '../../shared/commands/command-executor';
import type { CommandContext } from '../../shared/events/envelope';
import { HubSpotError } from '../../shared/errors/hubspot-error';
import { ProjectionRunner } from '../../shared/projections/projection-runner';
import { hashPassword } from '../../shared/security/password-hash';
import { sha256Hex } from '../../shared/security/constant-time';
import { AccountView, AppView, DirectoryQueries, UserView } from '../directory.queries';
import { accountDecider, appDecider, IdTaken, userDecider } from '../domain/directory-deciders';
import { accountStream, appStream, userStream } from '../domain/directory-events';

/** Ids look like HubSpot's: positive int32, at least 8 digits. */
const newId = () => randomInt(10_000_000, 2_147_483_647);

/** Write side of the directory: CreateAccount, CreateUser, RegisterApp. */
@Injectable()
export class DirectoryCommands {
  constructor(
    private readonly executor: CommandExecutor,
    private readonly runner: ProjectionRunner,
    private readonly queries: DirectoryQueries,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async createAccount(
    input: { domain: string; tier: Tier; hublet: string },
    ctx: CommandContext,
  ): Promise<AccountView> {
    const domain = input.domain.trim().toLowerCase();
    // Domains are unique; checked on the read model, which this instance keeps current (read-your-writes).
    if (this.queries.findAccountByDomain(domain))
      throw HubSpotError.conflict(`An account with domain ${domain} already exists.`);
    const { hubId, position } = await this.withFreshId((hubId) =>
      this.executor.execute(
        accountStream(hubId),
        accountDecider,
        (s) =>
          accountDecider.decide({ hubId, domain, hublet: input.hublet, tier: input.tier, now: this.clock.now() }, s),
        ctx,
      ),
    );
    await this.runner.waitFor(position);
    return this.queries.getAccount(hubId)!;
  }

  async createUser(
    input: { email: string; password: string; hubIds: number[] },
    ctx: CommandContext,
  ): Promise<UserView> {
    const email = input.email.trim().toLowerCase();
    const unknown = input.hubIds.filter((id) => !this.queries.getAccount(id));
    if (unknown.length > 0) {
      throw HubSpotError.validation(
        'Unknown account ids.',
        unknown.map((id) => ({ message: `No account with hubId ${id}`, in: 'hubIds', code: 'INVALID' })),
      );
    }
    const passwordHash = await hashPassword(input.password);
    const userId = newId();
    const result = await this.executor.execute(
      userStream(email),
      userDecider,
      (s) => userDecider.decide({ userId, email, passwordHash, hubIds: input.hubIds, now: this.clock.now() }, s),
      ctx,
    );
    await this.runner.waitFor(result.position);
    return this.queries.getUser(userId)!;
  }

  /** Returns the app and its client secret, which is shown only here and stored only as a hash. */
  async registerApp(
    input: {
      developerHubId: number;
      name: string;
      redirectUrls: string[];
      requiredScopes: string[];
      optionalScopes: string[];
      /** Only the demo seed fixes its credentials (they are public demo data). */
      fixedCredentials?: { clientId: string; clientSecret: string };
    },
    ctx: CommandContext,
  ): Promise<{ app: AppView; clientSecret: string }> {
    if (!this.queries.getAccount(input.developerHubId)) {
      throw HubSpotError.validation('Unknown developer account.', [
        { message: `No account with hubId ${input.developerHubId}`, in: 'developerHubId', code: 'INVALID' },
      ]);
    }
    const clientId = input.fixedCredentials?.clientId ?? randomUUID();
    const clientSecret = input.fixedCredentials?.clientSecret ?? randomUUID();
    const { hubId: appId, position } = await this.withFreshId((appId) =>
      this.executor.execute(
        appStream(appId),
        appDecider,
        (s) =>
          appDecider.decide(
            {
              appId,
              developerHubId: input.developerHubId,
              name: input.name,
              clientId,
              clientSecretHash: sha256Hex(clientSecret),
              redirectUrls: input.redirectUrls,
              requiredScopes: input.requiredScopes,
              optionalScopes: input.optionalScopes,
              now: this.clock.now(),
            },
            s,
          ),
        ctx,
      ),
    );
    await this.runner.waitFor(position);
    return { app: this.queries.getApp(appId)!, clientSecret };
  }

  private async withFreshId(
    run: (id: number) => Promise<{ position: number }>,
  ): Promise<{ hubId: number; position: number }> {
    for (let attempt = 0; attempt < 5; attempt++) {
      const id = newId();
      try {
        const { position } = await run(id);
        return { hubId: id, position };
      } catch (error) {
        if (!(error instanceof IdTaken)) throw error;
      }
    }
    throw new Error('could not allocate a free id after 5 attempts');
  }
}
