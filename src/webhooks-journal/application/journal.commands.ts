import { Inject } from '@nestjs/common';
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import type Database from 'better-sqlite3';
import { randomUUID } from 'node:crypto';
import { CLOCK, type Clock, InstallClocks } from '../../platform/clock';
import { EventStreams } from '../../platform/commands/event-streams';
import { EVENT_STORE, type EventStore } from '../../platform/event-store/event-store.port';
import type { CommandContext } from '../../platform/events/envelope';
import { answerAfterCommit, type ReadModel } from '../../platform/projections/answer-after-commit';
import { ProjectionRunner } from '../../platform/projections/projection-runner';
import { type JournalAppCommand, journalAppDecider } from '../domain/journal-app.decider';
import { journalAppStream } from '../domain/journal-events';
import { WebhooksJournalProjection } from '../projections/webhooks-journal.projection';
import { type FilterView, JournalQueries, type SubscriptionView } from './journal.queries';

type SnapshotRequest = Extract<JournalAppCommand, { type: 'RequestSnapshots' }>['requests'][number];

/** The decider's commands without the facts the handler adds (the time, a snapshot's status id). */
type WithoutFacts<C> = C extends { type: 'RequestSnapshots' }
  ? Omit<C, 'requests'> & { requests: Omit<SnapshotRequest, 'snapshotStatusId' | 'requestedAt'>[] }
  : C extends unknown
    ? Omit<C, 'now'>
    : never;

export interface SnapshotAnswer {
  objectId: number;
  objectTypeId: string;
  portalId: number;
  snapshotStatusId: string;
}

/** What each of an app's journal commands answers. */
export interface JournalAppAnswers {
  CreateSubscription: SubscriptionView;
  DeleteSubscription: null;
  DeletePortalSubscriptions: null;
  CreateFilter: FilterView;
  DeleteFilter: null;
  RequestSnapshots: SnapshotAnswer[];
}

/** An app's journal subscriptions, filters and snapshots change only through this command (the decider's, without the edge's facts). */
export class JournalAppBusCommand<T extends JournalAppCommand['type'] = JournalAppCommand['type']> extends Command<
  JournalAppAnswers[T]
> {
  constructor(
    readonly command: WithoutFacts<JournalAppCommand> & { type: T },
    readonly context: CommandContext,
  ) {
    super();
  }
}

/** The one handler of `journal.app-{appId}`: the time (a snapshot's on its install's clock) and fresh status ids added, decide, append, answer. */
@CommandHandler(JournalAppBusCommand)
export class JournalAppHandler implements ICommandHandler<JournalAppBusCommand> {
  private readonly apps;
  private readonly readModel: ReadModel<JournalQueries>;

  constructor(
    streams: EventStreams,
    private readonly runner: ProjectionRunner,
    @Inject(EVENT_STORE) private readonly store: EventStore,
    queries: JournalQueries,
    projection: WebhooksJournalProjection,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly clocks: InstallClocks,
  ) {
    this.apps = streams.forDecider(journalAppDecider);
    this.readModel = { projection, shared: queries, over: (db: Database.Database) => new JournalQueries(db) };
  }

  async execute({ command, context }: JournalAppBusCommand): Promise<JournalAppAnswers[JournalAppCommand['type']]> {
    const { appId } = command;
    const stream = journalAppStream(appId);
    const decided: JournalAppCommand =
      command.type === 'RequestSnapshots'
        ? {
            ...command,
            requests: command.requests.map((r) => ({
              ...r,
              snapshotStatusId: randomUUID(),
              requestedAt: this.clocks.nowFor(appId, r.portalId),
            })),
          }
        : ({ ...command, now: this.clock.now() } as JournalAppCommand);
    const result = await this.apps.handle(stream, decided, context);
    const committed = { runner: this.runner, store: this.store, position: result.position, streams: [stream] };
    const answer = <T>(read: (q: JournalQueries) => T | null): Promise<T> =>
      answerAfterCommit(committed, this.readModel, read);
    switch (decided.type) {
      case 'CreateSubscription': {
        const id = result.state.lastSubscriptionId;
        return answer((q) => q.subscription(appId, id));
      }
      case 'CreateFilter': {
        const id = result.state.lastFilterId;
        return answer((q) => q.filter(appId, id));
      }
      case 'RequestSnapshots':
        if (result.position > 0) await this.runner.readModelsReached(result.position);
        return decided.requests.map((r) => ({
          objectId: r.objectId,
          objectTypeId: r.objectTypeId,
          portalId: r.portalId,
          snapshotStatusId: r.snapshotStatusId,
        }));
      default:
        if (result.position > 0) await this.runner.readModelsReached(result.position);
        return null;
    }
  }
}
