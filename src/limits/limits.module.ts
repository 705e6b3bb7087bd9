import { Injectable, Module, OnModuleInit } from '@nestjs/common';
import { DirectoryModule } from '../directory/directory.module';
import { eventTypes } from '../platform/events/event-type-registry';
import { ProjectionRunner } from '../platform/projections/projection-runner';
import { LimitsCommands } from './application/limits.commands';
import { LimitsQueries } from './application/limits.queries';
import { LimitsEventType } from './domain/limits-events';
import { AdminLimitsController } from './http/admin-limits.controller';
import { LimitsController } from './http/limits.controller';
import { PropertiesController } from './http/properties.controller';
import { SchemasController } from './http/schemas.controller';
import { LimitsProjection } from './projections/limits.projection';

eventTypes.registerAll(Object.values(LimitsEventType));

/** Registers the read model with the runner before it starts (CoreModule starts it at bootstrap). */
@Injectable()
export class LimitsProjectionRegistration implements OnModuleInit {
  constructor(private readonly runner: ProjectionRunner) {}
  onModuleInit(): void {
    this.runner.register(new LimitsProjection());
  }
}

/**
 * Calculated properties, custom properties and custom object types with tier ceilings, and the
 * CRM limits endpoints. Write side: one stream per account; read side: the `limits` projection.
 */
@Module({
  imports: [DirectoryModule],
  controllers: [PropertiesController, SchemasController, LimitsController, AdminLimitsController],
  providers: [LimitsCommands, LimitsQueries, LimitsProjectionRegistration],
  exports: [LimitsQueries],
})
export class LimitsModule {}
