import { Module } from '@nestjs/common';
import { DirectoryModule } from '../directory';
import { AccessTokenVerificationModule } from '../oauth';
import { EventSourcingModule } from '../platform/event-sourcing/event-sourcing.module';
import { AccountLimitsHandler } from './application/account-limits.handler';
import { PropertiesQueries } from './application/properties.queries';
import { PropertyGroupsController } from './http/property-groups.controller';
import { LimitsQueries } from './application/limits.queries';
import { LimitsReadCache } from './application/limits-read-cache';
import { SchemasQueries } from './application/schemas.queries';
import { limitsEvents } from './domain/limits-events';
import { AdminLimitsController } from './http/admin-limits.controller';
import { LimitsController } from './http/limits.controller';
import { PropertiesController } from './http/properties.controller';
import { SchemaPurgeController } from './http/schema-purge.controller';
import { SchemasController } from './http/schemas.controller';
import { LimitsProjection } from './projections/limits.projection';

/**
 * Calculated properties, custom properties and custom object types with tier ceilings, and the
 * CRM limits endpoints. Write side: one stream per account; read side: the `limits` projection.
 */
@Module(
  EventSourcingModule.forFeature({
    events: limitsEvents,
    projections: [LimitsProjection],
    commandHandlers: [AccountLimitsHandler],
    imports: [DirectoryModule, AccessTokenVerificationModule],
    controllers: [
      PropertyGroupsController,
      PropertiesController,
      SchemasController,
      SchemaPurgeController,
      LimitsController,
      AdminLimitsController,
    ],
    providers: [
      { provide: LimitsReadCache, useFactory: () => new LimitsReadCache() },
      LimitsQueries,
      PropertiesQueries,
      SchemasQueries,
    ],
    exports: [LimitsQueries, PropertiesQueries],
  }),
)
export class CrmSchemaModule {}
