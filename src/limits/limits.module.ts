import { Module } from '@nestjs/common';
import { DirectoryModule } from '../directory/index';
import { EventSourcingModule } from '../platform/event-sourcing/event-sourcing.module';
import { LimitsCommands } from './application/limits.commands';
import { LimitsQueries } from './application/limits.queries';
import { LimitsEventType } from './domain/limits-events';
import { AdminLimitsController } from './http/admin-limits.controller';
import { LimitsController } from './http/limits.controller';
import { PropertiesController } from './http/properties.controller';
import { SchemasController } from './http/schemas.controller';
import { LimitsProjection } from './projections/limits.projection';

/**
 * Calculated properties, custom properties and custom object types with tier ceilings, and the
 * CRM limits endpoints. Write side: one stream per account; read side: the `limits` projection.
 */
@Module(
  EventSourcingModule.forFeature({
    events: Object.fromEntries(Object.values(LimitsEventType).map((t) => [t, null])),
    projections: [LimitsProjection],
    imports: [DirectoryModule],
    controllers: [PropertiesController, SchemasController, LimitsController, AdminLimitsController],
    providers: [LimitsCommands, LimitsQueries],
    exports: [LimitsQueries],
  }),
)
export class LimitsModule {}
