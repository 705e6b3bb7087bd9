import { Inject, Injectable } from '@nestjs/common';
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { DirectoryQueries } from '../../directory/directory.queries';
import { CLOCK, type Clock } from '../../platform/clock';
import { EventStreams } from '../../platform/commands/event-streams';
import { noSuchAccount } from '../domain/search-errors';
import type { CommandContext } from '../../platform/events/envelope';
import { answerFromReadModelOr } from '../../platform/projections/answer-after-commit';
import { ProjectionRunner } from '../../platform/projections/projection-runner';
import { searchLagDecider, searchLagStream, type SetSearchLag as SetSearchLagShape } from '../domain/search-lag';

/** The search lag of the accounts that have one, in memory (fed by SearchLagProjection): one Map get per search. */
@Injectable()
export class SearchLags {
  private readonly lags = new Map<number, number>();

  of(hubId: number): number {
    return this.lags.get(hubId) ?? 0;
  }

  set(hubId: number, lagMs: number): void {
    if (lagMs === 0) this.lags.delete(hubId);
    else this.lags.set(hubId, lagMs);
  }

  clear(): void {
    this.lags.clear();
  }
}

export interface SearchLagView {
  hubId: number;
  searchLagMs: number;
}

/** Sets an account's search lag (0 turns it off): `search.SearchLagSet` on the account's lag stream. */
export class SetSearchLag extends Command<SearchLagView> implements Omit<SetSearchLagShape, 'now'> {
  readonly type = 'SetSearchLag' as const;
  constructor(
    readonly hubId: number,
    readonly lagMs: number,
    readonly context: CommandContext,
  ) {
    super();
  }
}

@CommandHandler(SetSearchLag)
export class SetSearchLagHandler implements ICommandHandler<SetSearchLag> {
  private readonly lagStreams;

  constructor(
    streams: EventStreams,
    private readonly runner: ProjectionRunner,
    private readonly directory: DirectoryQueries,
    private readonly lags: SearchLags,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {
    this.lagStreams = streams.forDecider(searchLagDecider);
  }

  async execute(command: SetSearchLag): Promise<SearchLagView> {
    const { hubId, lagMs, context } = command;
    if (!this.directory.getAccount(hubId)) throw noSuchAccount(hubId);
    const decided: SetSearchLagShape = { type: 'SetSearchLag', hubId, lagMs, now: this.clock.now() };
    const { position } = await this.lagStreams.handle(searchLagStream(hubId), decided, context);
    // The lag lives in memory on every instance (the projection feeds it): answered once applied here.
    return answerFromReadModelOr(
      this.runner,
      position,
      () => ({ hubId, searchLagMs: this.lags.of(hubId) }),
      () => ({ hubId, searchLagMs: lagMs }),
    );
  }
}
