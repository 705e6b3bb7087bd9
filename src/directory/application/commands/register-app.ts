import { APP_CONFIG, type AppConfig } from '../../../platform/config/config';
import { SecretSealer } from '../../../platform/security/secret-sealer';
import { Inject } from '@nestjs/common';
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { randomUUID } from 'node:crypto';
import { CLOCK, Clock } from '../../../platform/clock';
import { EventStreams } from '../../../platform/commands/event-streams';
import { HubSpotError } from '../../../platform/errors/hubspot-error';
import { DirectoryAnswers } from '../directory-answers';
import { sha256Hex } from '../../../platform/security/crypto';
import { AppView, DirectoryQueries } from '../../directory.queries';
import { appDecider } from '../../domain/directory-deciders';
import { appStream } from '../../domain/directory-events';
import { withFreshId } from '../fresh-id';
import type { CommandContext } from '../../../platform/events/envelope';

export interface AppSettings {
  developerHubId: number;
  name: string;
  redirectUrls: string[];
  requiredScopes: string[];
  optionalScopes: string[];
  /** Only the demo seed fixes its credentials (they are public demo data). */
  fixedCredentials?: { clientId: string; clientSecret: string };
}

/** A public app of a developer account. Answers the client secret, shown only here and stored only hashed. */
export class RegisterApp extends Command<{ app: AppView; clientSecret: string }> {
  constructor(
    readonly settings: AppSettings,
    readonly context: CommandContext,
  ) {
    super();
  }
}

/**
 * Registers an app of a known developer account under a fresh app id. The client secret is made
 * here, answered once, and only its hash reaches the event.
 */
@CommandHandler(RegisterApp)
export class RegisterAppHandler implements ICommandHandler<RegisterApp> {
  private readonly apps;

  constructor(
    streams: EventStreams,
    private readonly answers: DirectoryAnswers,
    private readonly queries: DirectoryQueries,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    this.apps = streams.forDecider(appDecider);
  }

  async execute({ settings, context }: RegisterApp): Promise<{ app: AppView; clientSecret: string }> {
    if (!this.queries.getAccount(settings.developerHubId)) {
      throw HubSpotError.validation('Unknown developer account.', [
        { message: `No account with hubId ${settings.developerHubId}`, in: 'developerHubId', code: 'INVALID' },
      ]);
    }
    const clientId = settings.fixedCredentials?.clientId ?? randomUUID();
    const clientSecret = settings.fixedCredentials?.clientSecret ?? randomUUID();
    const { appId, position } = await withFreshId('directory.app', async (appId) => {
      const { position } = await this.apps.handle(
        appStream(appId),
        {
          appId,
          developerHubId: settings.developerHubId,
          name: settings.name,
          clientId,
          clientSecretHash: sha256Hex(clientSecret),
          clientSecretSealed: SecretSealer.forConfig(this.config).seal(clientSecret),
          redirectUrls: settings.redirectUrls,
          requiredScopes: settings.requiredScopes,
          optionalScopes: settings.optionalScopes,
          now: this.clock.now(),
        },
        context,
      );
      return { appId, position };
    });
    const app = await this.answers.answer(position, [appStream(appId)], (directory) => directory.getApp(appId));
    return { app, clientSecret };
  }
}
