import { Module } from '@nestjs/common';
import { DirectoryModule } from '../directory';
import { AccessTokenRevocationsModule } from '../oauth';
import { EventSourcingModule } from '../platform/event-sourcing/event-sourcing.module';
import { AccountFacts } from './application/account-facts';
import { AccountLimitsStream } from './application/account-limits-stream';
import { ArchiveCustomObjectSchemaHandler } from './application/commands/archive-custom-object-schema';
import { ArchivePropertyHandler } from './application/commands/archive-property';
import { ArchivePropertyGroupHandler } from './application/commands/archive-property-group';
import { BatchArchivePropertiesHandler } from './application/commands/batch-archive-properties';
import { BatchCreatePropertiesHandler } from './application/commands/batch-create-properties';
import { CreatePropertyGroupHandler } from './application/commands/create-property-group';
import { UpdatePropertyHandler } from './application/commands/update-property';
import { UpdatePropertyGroupHandler } from './application/commands/update-property-group';
import { PropertiesQueries } from './application/properties.queries';
import { DecidedLimitsReads } from './application/decided-limits-reads';
import { PropertyGroupsController } from './http/property-groups.controller';
import { CreateCustomObjectSchemaHandler } from './application/commands/create-custom-object-schema';
import { CreatePropertyHandler } from './application/commands/create-property';
import { OverrideAccountLimitsHandler } from './application/commands/override-account-limits';
import { PurgeCustomObjectSchemaHandler } from './application/commands/purge-custom-object-schema';
import { UpdateCustomObjectSchemaHandler } from './application/commands/update-custom-object-schema';
import { CreateAssociationDefinitionHandler } from './application/commands/create-association-definition';
import { DeleteAssociationDefinitionHandler } from './application/commands/delete-association-definition';
import { LimitsQueries } from './application/limits.queries';
import { SchemasQueries } from './application/schemas.queries';
import { limitsEvents } from './domain/limits-events';
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
    events: limitsEvents,
    projections: [LimitsProjection],
    commandHandlers: [
      CreatePropertyHandler,
      ArchivePropertyHandler,
      CreateCustomObjectSchemaHandler,
      ArchiveCustomObjectSchemaHandler,
      PurgeCustomObjectSchemaHandler,
      OverrideAccountLimitsHandler,
      UpdateCustomObjectSchemaHandler,
      CreateAssociationDefinitionHandler,
      DeleteAssociationDefinitionHandler,
      UpdatePropertyHandler,
      BatchCreatePropertiesHandler,
      BatchArchivePropertiesHandler,
      CreatePropertyGroupHandler,
      UpdatePropertyGroupHandler,
      ArchivePropertyGroupHandler,
    ],
    imports: [DirectoryModule, AccessTokenRevocationsModule],
    controllers: [
      PropertyGroupsController,
      PropertiesController,
      SchemasController,
      LimitsController,
      AdminLimitsController,
    ],
    providers: [
      LimitsQueries,
      PropertiesQueries,
      SchemasQueries,
      AccountFacts,
      AccountLimitsStream,
      DecidedLimitsReads,
    ],
    exports: [LimitsQueries],
  }),
)
export class LimitsModule {}
