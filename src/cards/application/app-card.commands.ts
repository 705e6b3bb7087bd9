import { Inject, Injectable } from '@nestjs/common';
import { CLOCK, Clock } from '../../platform/clock';
import { CommandExecutor } from '../../platform/commands/command-executor';
import type { CommandContext } from '../../platform/events/envelope';
import { ProjectionRunner } from '../../platform/projections/projection-runner';
import { cardStream } from '../domain/card-events';
import type { CardObjectType } from '../domain/card-views';
import { appCardDecider } from '../domain/app-card.decider';
import { CardIdAllocator } from './card-id-allocator';
import { CardsQueries, type AppCardRecord } from './cards.queries';

/** Registers an app's new-style cards: the targets of a views migration. */
@Injectable()
export class AppCardCommands {
  constructor(
    private readonly executor: CommandExecutor,
    private readonly runner: ProjectionRunner,
    private readonly queries: CardsQueries,
    private readonly ids: CardIdAllocator,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async createAppCard(
    appId: number,
    input: { title: string; objectTypes: CardObjectType[] },
    ctx: CommandContext,
  ): Promise<AppCardRecord> {
    const { appCardId, position } = await this.ids.withNewId(async (appCardId) => {
      const result = await this.executor.execute(
        cardStream(appCardId),
        appCardDecider,
        (state) =>
          appCardDecider.decide(
            {
              kind: 'CreateAppCard',
              appCardId,
              appId,
              title: input.title,
              objectTypes: input.objectTypes,
              now: this.clock.now(),
            },
            state,
          ),
        ctx,
      );
      return { appCardId, position: result.position };
    });
    await this.runner.waitFor(position);
    return this.queries.appCard(appCardId)!;
  }
}
