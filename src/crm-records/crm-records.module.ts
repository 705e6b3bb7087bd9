import { Module } from '@nestjs/common';
import { CrmAssociationsModule } from '../crm-associations';
import { CrmPipelinesModule } from '../crm-pipelines';
import { CrmSchemaModule } from '../crm-schema';
import { AccessTokenVerificationModule } from '../oauth';
import { EventSourcingModule } from '../platform/event-sourcing/event-sourcing.module';
import { CrmRecordsHandler } from './application/crm-records.handler';
import { CrmRecordsQueries, RecordHistory } from './application/crm-records.queries';
import { RecordCeilings } from './application/record-ceilings';
import { RecordIds } from './application/record-ids';
import { RecordSchema } from './application/record-schema';
import { DemoRecordsSeeder } from './demo-records.seeder';
import { crmRecordsEvents } from './domain/record-events';
import { AdminRecordsController } from './http/admin-records.controller';
import { RecordLimitsController } from './http/record-limits.controller';
import { RecordsController } from './http/records.controller';
import { CrmRecordsProjection } from './projections/crm-records.projection';

/**
 * CRM records (contacts, companies, deals, tickets, custom objects): one stream per record, unique
 * values claimed on their own streams, ids reserved per account in ranges; read side: the
 * `crm-records` projection. Object types and property definitions come from the CRM schema
 * module, through its index.
 */
@Module(
  EventSourcingModule.forFeature({
    events: crmRecordsEvents,
    projections: [CrmRecordsProjection],
    commandHandlers: [CrmRecordsHandler],
    imports: [CrmSchemaModule, AccessTokenVerificationModule, CrmPipelinesModule, CrmAssociationsModule],
    controllers: [RecordsController, RecordLimitsController, AdminRecordsController],
    providers: [CrmRecordsQueries, RecordHistory, RecordSchema, RecordIds, RecordCeilings, DemoRecordsSeeder],
    exports: [CrmRecordsQueries, RecordHistory, DemoRecordsSeeder],
  }),
)
export class CrmRecordsModule {}
