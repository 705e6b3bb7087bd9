import { Module } from '@nestjs/common';
import { CrmSchemaModule } from '../crm-schema';
import { DirectoryModule } from '../directory';
import { AccessTokenVerificationModule } from '../oauth';
import { EventSourcingModule } from '../platform/event-sourcing/event-sourcing.module';
import { CrmPipelinesHandler } from './application/crm-pipelines.handler';
import { PipelinesQueries } from './crm-pipelines.queries';
import { pipelineEvents } from './domain/pipeline-events';
import { PipelineLimitsController } from './http/pipeline-limits.controller';
import { PipelinesController } from './http/pipelines.controller';
import { CrmPipelinesProjection } from './projections/crm-pipelines.projection';

/**
 * Pipelines of deals, tickets and custom objects: one stream per account and object type, HubSpot's defaults
 * present without a write; read side: the `crm-pipelines` projection (pipelines, audits, and the
 * stage of each deal and ticket from the records' published events).
 */
@Module(
  EventSourcingModule.forFeature({
    events: pipelineEvents,
    projections: [CrmPipelinesProjection],
    commandHandlers: [CrmPipelinesHandler],
    imports: [CrmSchemaModule, DirectoryModule, AccessTokenVerificationModule],
    controllers: [PipelinesController, PipelineLimitsController],
    providers: [PipelinesQueries],
    exports: [PipelinesQueries],
  }),
)
export class CrmPipelinesModule {}
