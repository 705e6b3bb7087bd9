import { Inject, Injectable } from '@nestjs/common';
import Database from 'better-sqlite3';
import { DirectoryQueries } from '../../directory';
import { APP_CONFIG, type AppConfig } from '../../platform/config/config';
import { EVENT_STORE, type EventStore } from '../../platform/event-store/event-store.port';
import { eventTypes } from '../../platform/events/event-type-registry';
import { limitsAccountStream, type LimitsEvent } from '../domain/limits-events';
import { LimitsProjection } from '../projections/limits.projection';
import { LimitsQueries } from './limits.queries';
import { PropertiesQueries } from './properties.queries';
import { SchemasQueries } from './schemas.queries';

/** The reads a limits command answers with, over one read model or another. */
export interface LimitsReads {
  limits: LimitsQueries;
  properties: PropertiesQueries;
  schemas: SchemasQueries;
}

/**
 * The limits read model of one account as its own stream (the events the command just appended
 * included) makes it: the `limits` projection applied in a scratch in-memory database and read by
 * the same queries, so the answer is the JSON the shared read model gives once it catches up.
 * Only for a committed command whose read model lags or cannot be written; it replays the
 * account's whole stream, which the shared read model spares every other request.
 */
@Injectable()
export class DecidedLimitsReads {
  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly directory: DirectoryQueries,
  ) {}

  async read<T>(hubId: number, answer: (reads: LimitsReads) => T): Promise<T> {
    const history = await this.store.readStream(limitsAccountStream(hubId));
    const db = new Database(':memory:');
    try {
      const projection = new LimitsProjection();
      projection.setup(db);
      db.transaction(() => {
        for (const recorded of history) projection.apply(eventTypes.decode<LimitsEvent>(recorded), db);
      })();
      const limits = new LimitsQueries(db, this.config, this.directory);
      return answer({ limits, properties: new PropertiesQueries(db, limits), schemas: new SchemasQueries(db) });
    } finally {
      db.close();
    }
  }
}
