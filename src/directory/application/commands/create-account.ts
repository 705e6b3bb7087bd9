import { Inject } from '@nestjs/common';
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { CLOCK, Clock } from '../../../platform/clock';
import { EventStreams } from '../../../platform/commands/event-streams';
import type { CommandContext } from '../../../platform/events/envelope';
import { HubSpotError } from '../../../platform/errors/hubspot-error';
import { DirectoryAnswers } from '../directory-answers';
import { AccountWithSettings, DirectoryQueries } from '../../directory.queries';
import { accountDecider, domainClaimDecider, IdTaken, NewAccount } from '../../domain/directory-deciders';
import { accountStream, domainStream } from '../../domain/directory-events';
import { withFreshId } from '../fresh-id';
import { type AccountSettingsPatch, applySettingsPatch, defaultAccountSettings } from '../../domain/account-settings';
import type { Tier } from '../../../platform/tiers';

/** An account (hub) on its own domain; the domain is unique. */
export class CreateAccount extends Command<AccountWithSettings> implements Omit<NewAccount, 'hubId' | 'now'> {
  readonly type = 'CreateAccount' as const;
  constructor(
    readonly domain: string,
    readonly tier: Tier,
    readonly hublet: string,
    readonly context: CommandContext,
    /** Settings other than the hublet's defaults. */
    readonly settings?: AccountSettingsPatch,
  ) {
    super();
  }
}

/**
 * Creates an account in three named steps over three streams, in this order: an id no account
 * uses yet, the domain's claim stream (of two concurrent creates for one domain exactly one gets
 * it, the other 409), then the account's own stream. The claim comes first so that a taken domain
 * never leaves an account behind.
 */
@CommandHandler(CreateAccount)
export class CreateAccountHandler implements ICommandHandler<CreateAccount> {
  private readonly domainClaims;
  private readonly accounts;

  constructor(
    private readonly streams: EventStreams,
    private readonly answers: DirectoryAnswers,
    private readonly queries: DirectoryQueries,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {
    this.domainClaims = streams.forDecider(domainClaimDecider);
    this.accounts = streams.forDecider(accountDecider);
  }

  async execute({ domain, tier, hublet, context, settings }: CreateAccount): Promise<AccountWithSettings> {
    const normalized = domain.trim().toLowerCase();
    // Checked before the domain is claimed, so bad settings leave nothing behind.
    if (settings) {
      const checked = applySettingsPatch(defaultAccountSettings(hublet), settings);
      if (!checked.ok) throw HubSpotError.validation('Invalid account settings.', checked.errors);
    }
    const hubId = await this.pickUnusedAccountId();
    await this.claimDomain(normalized, hubId, context);
    const { position } = await this.createAccount(
      {
        type: 'CreateAccount',
        hubId,
        domain: normalized,
        hublet,
        tier,
        ...(settings ? { settings } : {}),
        now: this.clock.now(),
      },
      context,
    );
    return this.answers.answer(position, [accountStream(hubId)], (directory) =>
      directory.getAccountWithSettings(hubId),
    );
  }

  /** Step 1: a random id whose account stream does not exist yet. */
  private pickUnusedAccountId(): Promise<number> {
    return withFreshId('directory.account', async (hubId) => {
      const { state } = await this.streams.load(accountStream(hubId), accountDecider);
      if (state.exists) throw new IdTaken();
      return hubId;
    });
  }

  /**
   * Step 2: the domain's claim, for this id (409 when another account has the domain). A claim
   * left by a create that failed before its account was stored (a full disk, a crash) does not
   * keep the domain: its id is voided first (which fails if that account exists after all, and
   * makes that create's step 3 fail if it is still under way), then the claim moves to this id.
   */
  private async claimDomain(domain: string, hubId: number, context: CommandContext) {
    try {
      return await this.domainClaims.handle(domainStream(domain), { domain, hubId }, context);
    } catch (error) {
      if (!(error instanceof HubSpotError) || error.httpStatus !== 409) throw error;
      const { state } = await this.streams.load(domainStream(domain), domainClaimDecider);
      if (state.holder === null || !(await this.voidOrphan(state.holder, domain, context))) throw error;
      return this.domainClaims.handle(domainStream(domain), { domain, hubId, orphanedHolder: state.holder }, context);
    }
  }

  /** True when the holder's id has no account and is now spent; false when its account exists. */
  private async voidOrphan(holder: number, domain: string, context: CommandContext): Promise<boolean> {
    try {
      await this.accounts.handle(
        accountStream(holder),
        { type: 'VoidAccountId', hubId: holder, domain, now: this.clock.now() },
        context,
      );
      return true;
    } catch (error) {
      if (error instanceof IdTaken) return false;
      throw error;
    }
  }

  /** Step 3: the account. Losing its id to a concurrent create since step 1 is a 409 to retry. */
  private async createAccount(account: NewAccount, context: CommandContext) {
    try {
      return await this.accounts.handle(accountStream(account.hubId), account, context);
    } catch (error) {
      if (error instanceof IdTaken) {
        throw HubSpotError.conflict('Another account took the same id at the same time; retry.');
      }
      throw error;
    }
  }
}
