import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../../platform/config/config';
import { EVENT_STORE, type EventStore } from '../../platform/event-store/event-store.port';
import { CommittedAnswers } from '../../platform/projections/answer-after-commit';
import { ProjectionRunner } from '../../platform/projections/projection-runner';
import { DirectoryQueries } from '../directory.queries';
import { DirectoryProjection } from '../projections/directory.projection';

/** The directory commands' answers after commit: the directory read model, or the same built from the command's streams. */
@Injectable()
export class DirectoryAnswers extends CommittedAnswers<DirectoryQueries> {
  constructor(
    runner: ProjectionRunner,
    @Inject(EVENT_STORE) store: EventStore,
    @Inject(APP_CONFIG) config: AppConfig,
    projection: DirectoryProjection,
    queries: DirectoryQueries,
  ) {
    super(runner, store, { projection, shared: queries, over: (db) => new DirectoryQueries(db, config) });
  }
}
