import { Inject } from '@nestjs/common';
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import type Database from 'better-sqlite3';
import { randomUUID } from 'node:crypto';
import { InstallClocks, CLOCK, type Clock } from '../../platform/clock';
import { EventStreams } from '../../platform/commands/event-streams';
import { EVENT_STORE, type EventStore } from '../../platform/event-store/event-store.port';
import type { CommandContext } from '../../platform/events/envelope';
import { answerAfterCommit, type ReadModel } from '../../platform/projections/answer-after-commit';
import { ProjectionRunner } from '../../platform/projections/projection-runner';
import { type AppWebhooksCommand, appWebhooksDecider, type RejectedInput } from '../domain/app-webhooks.decider';
import { deliveryRecordDecider, type RequestRedelivery } from '../domain/delivery-records.decider';
import { appWebhooksStream, redeliveryStream, signingSecretStream, WebhooksEventType } from '../domain/webhook-events';
import { WebhookSettingsProjection } from '../projections/webhook-settings.projection';
import { type SettingsView, type SubscriptionView, WebhooksQueries } from './webhooks.queries';

type WithoutTime<C> = C extends unknown ? Omit<C, 'now'> : never;

/** What each of an app's webhook commands answers. */
export interface AppWebhooksAnswers {
  ConfigureSettings: SettingsView;
  ClearSettings: null;
  CreateSubscription: SubscriptionView;
  UpdateSubscription: SubscriptionView;
  BatchUpdateSubscriptions: { results: SubscriptionView[]; rejected: RejectedInput[] };
  DeleteSubscription: null;
}

/**
 * An app's webhook settings and subscriptions change only through this command, which carries the
 * decider's command as it is (domain/app-webhooks.decider.ts) without the time the handler adds.
 */
export class AppWebhooksBusCommand<T extends AppWebhooksCommand['type'] = AppWebhooksCommand['type']> extends Command<
  AppWebhooksAnswers[T]
> {
  constructor(
    readonly command: WithoutTime<AppWebhooksCommand> & { type: T },
    readonly context: CommandContext,
  ) {
    super();
  }
}

/** The one handler of `webhooks.app-{appId}`: decide, append, answer from the read model. */
@CommandHandler(AppWebhooksBusCommand)
export class AppWebhooksHandler implements ICommandHandler<AppWebhooksBusCommand> {
  private readonly apps;
  private readonly readModel: ReadModel<WebhooksQueries>;

  constructor(
    streams: EventStreams,
    private readonly runner: ProjectionRunner,
    @Inject(EVENT_STORE) private readonly store: EventStore,
    queries: WebhooksQueries,
    projection: WebhookSettingsProjection,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {
    this.apps = streams.forDecider(appWebhooksDecider);
    this.readModel = { projection, shared: queries, over: (db: Database.Database) => new WebhooksQueries(db) };
  }

  async execute({ command, context }: AppWebhooksBusCommand): Promise<AppWebhooksAnswers[AppWebhooksCommand['type']]> {
    const stream = appWebhooksStream(command.appId);
    const decided = { ...command, now: this.clock.now() } as AppWebhooksCommand;
    const result = await this.apps.handle(stream, decided, context);
    const committed = { runner: this.runner, store: this.store, position: result.position, streams: [stream] };
    const { appId } = command;
    const answer = <T>(read: (q: WebhooksQueries) => T | null): Promise<T> =>
      result.position > 0
        ? answerAfterCommit(committed, this.readModel, read)
        : Promise.resolve(read(this.readModel.shared) as T);
    switch (command.type) {
      case 'ConfigureSettings':
        return answer((q) => q.settings(appId));
      case 'ClearSettings':
      case 'DeleteSubscription':
        if (result.position > 0) await this.runner.readModelsReached(result.position);
        return null;
      case 'CreateSubscription': {
        const id = result.state.lastSubscriptionId;
        return answer((q) => q.subscription(appId, id));
      }
      case 'UpdateSubscription':
        return answer((q) => q.subscription(appId, command.subscriptionId));
      case 'BatchUpdateSubscriptions': {
        const known = command.inputs.filter((i) => result.state.subscriptions.has(i.id));
        const rejected = command.inputs.filter((i) => !result.state.subscriptions.has(i.id)).map((i) => ({ id: i.id }));
        const ids = [...new Set(known.map((i) => i.id))];
        const results = await answer((q) => ids.map((id) => q.subscription(appId, id)!));
        return { results, rejected };
      }
    }
  }
}

/**
 * A redelivery an admin asked for: one event on a stream of its own. (Attempts are appended by the
 * delivery thread itself: dispatcher-commands.ts.)
 */
export class DeliveryRecordBusCommand extends Command<{ position: number }> {
  constructor(
    readonly command: Omit<RequestRedelivery, 'now'>,
    readonly context: CommandContext,
  ) {
    super();
  }
}

@CommandHandler(DeliveryRecordBusCommand)
export class DeliveryRecordHandler implements ICommandHandler<DeliveryRecordBusCommand> {
  private readonly records;

  constructor(
    streams: EventStreams,
    private readonly clocks: InstallClocks,
  ) {
    this.records = streams.forDecider(deliveryRecordDecider);
  }

  async execute({ command, context }: DeliveryRecordBusCommand): Promise<{ position: number }> {
    // A redelivery is due at once on the item's install's clock: its time now.
    const now = this.clocks.nowFor(command.appId, command.hubId);
    const stream = redeliveryStream(command.appId, randomUUID());
    return { position: (await this.records.handleNew(stream, { ...command, now }, context)).position };
  }
}

/** Keep an app's client secret sealed under the current signing key (webhooks' own copy). */
export class ResealSigningSecretBusCommand extends Command<{ position: number }> {
  constructor(
    readonly command: { type: 'ResealSigningSecret'; appId: number; sealed: string; replaces: string },
    readonly context: CommandContext,
  ) {
    super();
  }
}

/** Appended whatever the stream holds: instances that re-seal at once write the same meaning twice. */
@CommandHandler(ResealSigningSecretBusCommand)
export class ResealSigningSecretHandler implements ICommandHandler<ResealSigningSecretBusCommand> {
  constructor(
    private readonly streams: EventStreams,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  execute({ command, context }: ResealSigningSecretBusCommand): Promise<{ position: number }> {
    const { appId, sealed, replaces } = command;
    return this.streams.append(
      signingSecretStream(appId),
      [
        {
          type: WebhooksEventType.SigningSecretResealed,
          data: { appId, sealed, replaces, resealedAt: this.clock.now() },
        },
      ],
      'any',
      context,
    );
  }
}
