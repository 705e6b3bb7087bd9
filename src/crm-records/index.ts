/** The CRM records module's public surface. Everything else under src/crm-records is internal (lint enforces it). */
export { CrmRecordsModule } from './crm-records.module';
export { DemoRecordsSeeder } from './demo-records.seeder';
// The system values' names and default properties per object type, which search shows the same way.
export { type RecordTypeTraits, recordTypeTraits, systemValues } from './domain/record-types';
// The scopes a records call accepts per object type family (the legacy contacts API asks the same).
export { recordScopes } from './domain/record-scopes';
