import { Module } from '@nestjs/common';
import { DirectoryModule } from '../directory';
import { CrmSchemaModule } from '../crm-schema';
import { AccessTokenVerificationModule } from '../oauth';
import { EventSourcingModule } from '../platform/event-sourcing/event-sourcing.module';
import { CrmSearchQueries } from './application/crm-search.queries';
import { SearchExecutor } from './application/search-executor';
import { SearchLags, SetSearchLagHandler } from './application/search-lag';
import { SearchRateLimit } from './application/search-rate-limit';
import { searchEvents } from './domain/search-lag';
import { SearchLagController } from './http/search-lag.controller';
import { SearchController } from './http/search.controller';
import { CrmSearchProjection } from './projections/crm-search.projection';
import { SearchAssociationsProjection } from './projections/search-associations.projection';
import { SearchLagProjection } from './projections/search-lag.projection';

/**
 * CRM search (`POST …/objects/{type}/search`): the `crm-search` read model built from the records
 * module's published events, queries compiled to SQL and run on a search thread, HubSpot's search
 * limit, and the search lag test control.
 */
@Module(
  EventSourcingModule.forFeature({
    events: searchEvents,
    projections: [CrmSearchProjection, SearchLagProjection, SearchAssociationsProjection],
    commandHandlers: [SetSearchLagHandler],
    imports: [CrmSchemaModule, DirectoryModule, AccessTokenVerificationModule],
    controllers: [SearchController, SearchLagController],
    providers: [CrmSearchQueries, SearchExecutor, SearchLags, SearchRateLimit],
    exports: [SearchLags, CrmSearchQueries],
  }),
)
export class CrmSearchModule {}
