import { Inject } from '@nestjs/common';
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { CLOCK, Clock } from '../../../platform/clock';
import { EventStreams } from '../../../platform/commands/event-streams';
import type { CommandContext } from '../../../platform/events/envelope';
import { DirectoryAnswers } from '../directory-answers';
import type { AppView } from '../../directory.queries';
import { appDecider, type AppSettingsPatch, type ChangeAppSettings as Decided } from '../../domain/directory-deciders';
import { appStream } from '../../domain/directory-events';

/** Changes some of an app's settings (name, redirect URLs, scopes); answers the app as it is then. */
export class ChangeAppSettings extends Command<AppView> implements Omit<Decided, 'now'> {
  readonly type = 'ChangeAppSettings' as const;
  constructor(
    readonly appId: number,
    readonly patch: AppSettingsPatch,
    readonly context: CommandContext,
  ) {
    super();
  }
}

/**
 * 404 for an unknown app, 400 for settings an app may not have (the registration's rules); a
 * change to the same values records nothing. Answers once the read model holds the change, so the
 * install page and the install URL follow it on the next request.
 */
@CommandHandler(ChangeAppSettings)
export class ChangeAppSettingsHandler implements ICommandHandler<ChangeAppSettings> {
  private readonly apps;

  constructor(
    streams: EventStreams,
    private readonly answers: DirectoryAnswers,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {
    this.apps = streams.forDecider(appDecider);
  }

  async execute(command: ChangeAppSettings): Promise<AppView> {
    const { appId, context } = command;
    const { position } = await this.apps.handle(appStream(appId), { ...command, now: this.clock.now() }, context);
    return this.answers.answer(position, [appStream(appId)], (directory) => directory.getApp(appId));
  }
}
