import { Module } from '@nestjs/common';
import { CrmSchemaModule } from '../crm-schema';
import { AccessTokenVerificationModule } from '../oauth';
import { EventSourcingModule } from '../platform/event-sourcing/event-sourcing.module';
import { AssociationLimitsHandler } from './application/association-limits.handler';
import { CrmAssociationsHandler } from './application/crm-associations.handler';
import { AssociationsQueries } from './crm-associations.queries';
import { associationEvents } from './domain/association-events';
import { associationLimitEvents } from './domain/association-limits.decider';
import { AssociationLabelsController } from './http/association-labels.controller';
import { AssociationLimitsController } from './http/association-limits.controller';
import { AssociationsController } from './http/associations.controller';
import { CrmAssociationsProjection } from './projections/crm-associations.projection';

/**
 * Associations v4 between CRM records: one stream per record pair, HubSpot's type ids; read side:
 * the `crm-associations` projection (both directions of every association, and which records are
 * live, from the records' published events). Object types resolve through the CRM schema module.
 */
@Module(
  EventSourcingModule.forFeature({
    events: { ...associationEvents, ...associationLimitEvents },
    projections: [CrmAssociationsProjection],
    commandHandlers: [CrmAssociationsHandler, AssociationLimitsHandler],
    imports: [CrmSchemaModule, AccessTokenVerificationModule],
    controllers: [AssociationsController, AssociationLimitsController, AssociationLabelsController],
    providers: [AssociationsQueries],
    exports: [AssociationsQueries],
  }),
)
export class CrmAssociationsModule {}
