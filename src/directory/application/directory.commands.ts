import { Inject, Injectable } from '@nestjs/common';
import { randomInt, randomUUID } from 'node:crypto';
import type { Tier } from '../../platform/tiers';
import { CLOCK, Clock } from '../../platform/clock';
import { CommandExecutor } from '../../platform/commands/command-executor';
import { EVENT_STORE, EventStore } from '../../platform/event-store/event-store.port';
import type { CommandContext } from '../../platform/events/envelope';
import { HubSpotError } from '../../platform/errors/hubspot-error';
import { ProjectionRunner } from '../../platform/projections/projection-runner';
import { hashPassword } from '../../platform/security/password-hash';
import { sha256Hex } from '../../platform/security/constant-time';
import { AccountView, AppView, DirectoryQueries, UserView } from '../directory.queries';
import {
  accountDecider,
  appDecider,
  domainClaimDecider,
  IdTaken,
  userDecider,
  userIdDecider,
} from '../domain/directory-deciders';
import { accountStream, appStream, domainStream, userIdStream, userStream } from '../domain/directory-events';

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
    @Inject(EVENT_STORE) private readonly store: EventStore,
  ) {}

  async createAccount(
    input: { domain: string; tier: Tier; hublet: string },
    ctx: CommandContext,
  ): Promise<AccountView> {
    const domain = input.domain.trim().toLowerCase();
    // An id nobody uses yet, then the domain claim (atomic: of two concurrent creates one gets 409),
    // then the account. Losing the id to a concurrent create after the check is a 409 to retry.
    const hubId = await this.unusedAccountId();
    await this.executor.execute(
      domainStream(domain),
      domainClaimDecider,
      (s) => domainClaimDecider.decide({ domain, hubId }, s),
      ctx,
    );
    let position: number;
    try {
      ({ position } = await this.executor.execute(
        accountStream(hubId),
        accountDecider,
        (s) =>
          accountDecider.decide({ hubId, domain, hublet: input.hublet, tier: input.tier, now: this.clock.now() }, s),
        ctx,
      ));
    } catch (error) {
      if (error instanceof IdTaken)
        throw HubSpotError.conflict('Another account took the same id at the same time; retry.');
      throw error;
    }
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
    const { id: userId } = await this.withFreshId((id) =>
      this.executor.execute(
        userIdStream(id),
        userIdDecider,
        (s) => userIdDecider.decide({ userId: id, email }, s),
        ctx,
      ),
    );
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
    const { id: appId, position } = await this.withFreshId((appId) =>
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

  /** Runs a create under a random id, trying another id when the decider says it is taken. */
  private async withFreshId(
    run: (id: number) => Promise<{ position: number }>,
  ): Promise<{ id: number; position: number }> {
    for (let attempt = 0; attempt < 5; attempt++) {
      const id = newId();
      try {
        const { position } = await run(id);
        return { id, position };
      } catch (error) {
        if (!(error instanceof IdTaken)) throw error;
      }
    }
    throw new Error('could not allocate a free id after 5 attempts');
  }

  private async unusedAccountId(): Promise<number> {
    for (let attempt = 0; attempt < 5; attempt++) {
      const id = newId();
      if ((await this.store.readStream(accountStream(id))).length === 0) return id;
    }
    throw new Error('could not find a free account id after 5 attempts');
  }
}
