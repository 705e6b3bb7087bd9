import { Inject } from '@nestjs/common';
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { CLOCK, Clock } from '../../../platform/clock';
import { EventStreams } from '../../../platform/commands/event-streams';
import type { CommandContext } from '../../../platform/events/envelope';
import { DirectoryAnswers } from '../directory-answers';
import { type AccountWithSettings, DirectoryQueries } from '../../directory.queries';
import type { AccountSettingsPatch } from '../../domain/account-settings';
import { accountDecider, type ChangeAccountSettings as Decided } from '../../domain/directory-deciders';
import { accountStream } from '../../domain/directory-events';

/** Changes some of an account's settings (time zone, currencies, account type); answers the account as it is then. */
export class ChangeAccountSettings extends Command<AccountWithSettings> implements Omit<Decided, 'now'> {
  readonly type = 'ChangeAccountSettings' as const;
  constructor(
    readonly hubId: number,
    readonly patch: AccountSettingsPatch,
    readonly context: CommandContext,
  ) {
    super();
  }
}

/** 404 for an unknown account, 400 for bad settings; a change to the same values records nothing. */
@CommandHandler(ChangeAccountSettings)
export class ChangeAccountSettingsHandler implements ICommandHandler<ChangeAccountSettings> {
  private readonly accounts;

  constructor(
    streams: EventStreams,
    private readonly answers: DirectoryAnswers,
    private readonly queries: DirectoryQueries,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {
    this.accounts = streams.forDecider(accountDecider);
  }

  async execute(command: ChangeAccountSettings): Promise<AccountWithSettings> {
    const { hubId, context } = command;
    const { position } = await this.accounts.handle(
      accountStream(hubId),
      { ...command, now: this.clock.now() },
      context,
    );
    return this.answers.answer(position, [accountStream(hubId)], (directory) =>
      directory.getAccountWithSettings(hubId),
    );
  }
}
