import { Inject } from '@nestjs/common';
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { randomUUID } from 'node:crypto';
import { CLOCK, Clock } from '../../../platform/clock';
import { APP_CONFIG, type AppConfig } from '../../../platform/config/config';
import { SecretSealer } from '../../../platform/security/secret-sealer';
import { EventStreams } from '../../../platform/commands/event-streams';
import type { CommandContext } from '../../../platform/events/envelope';
import { sha256Hex } from '../../../platform/security/crypto';
import { DirectoryAnswers } from '../directory-answers';
import type { AppView } from '../../directory.queries';
import { appDecider, type RotateClientSecret as Decided } from '../../domain/directory-deciders';
import { appStream } from '../../domain/directory-events';

/**
 * A new client secret for the app (HubSpot's "rotate"). Answers the app with the new secret, shown
 * only here. `givenSecret`: a fixtures file's secret (the one the app already has), else a random
 * UUID (HubSpot's format).
 */
export class RotateClientSecret
  extends Command<{ app: AppView; clientSecret: string }>
  implements Pick<Decided, 'type' | 'appId'>
{
  readonly type = 'RotateClientSecret' as const;
  constructor(
    readonly appId: number,
    readonly context: CommandContext,
    readonly givenSecret?: string,
  ) {
    super();
  }
}

/**
 * Makes the secret here, so only its hash (and its sealed form, for signing webhooks) reaches the
 * decider and the event. What follows for the
 * app's clients (docs/oauth.md, "Rotating the client secret"): the old secret stops authenticating
 * at the token endpoint once this answers; access and refresh tokens already issued keep working.
 */
@CommandHandler(RotateClientSecret)
export class RotateClientSecretHandler implements ICommandHandler<RotateClientSecret> {
  private readonly apps;

  constructor(
    streams: EventStreams,
    private readonly answers: DirectoryAnswers,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    this.apps = streams.forDecider(appDecider);
  }

  async execute({ appId, context, givenSecret }: RotateClientSecret): Promise<{ app: AppView; clientSecret: string }> {
    const clientSecret = givenSecret ?? randomUUID();
    const { position } = await this.apps.handle(
      appStream(appId),
      {
        type: 'RotateClientSecret',
        appId,
        clientSecretHash: sha256Hex(clientSecret),
        // Sealed as at registration: webhook deliveries are signed with the secret the app has now.
        clientSecretSealed: SecretSealer.forConfig(this.config).seal(clientSecret),
        now: this.clock.now(),
      },
      context,
    );
    const app = await this.answers.answer(position, [appStream(appId)], (directory) => directory.getApp(appId));
    return { app, clientSecret };
  }
}
