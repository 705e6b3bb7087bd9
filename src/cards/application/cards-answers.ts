import { Inject, Injectable } from '@nestjs/common';
import { EVENT_STORE, type EventStore } from '../../platform/event-store/event-store.port';
import { CommittedAnswers } from '../../platform/projections/answer-after-commit';
import { ProjectionRunner } from '../../platform/projections/projection-runner';
import { CardsProjection } from '../projections/cards.projection';
import { CardsQueries } from './cards.queries';

/** The cards commands' answers after commit: the `cards` read model, or the same built from the command's streams. */
@Injectable()
export class CardsAnswers extends CommittedAnswers<CardsQueries> {
  constructor(
    runner: ProjectionRunner,
    @Inject(EVENT_STORE) store: EventStore,
    projection: CardsProjection,
    queries: CardsQueries,
  ) {
    super(runner, store, { projection, shared: queries, over: (db) => new CardsQueries(db) });
  }
}
