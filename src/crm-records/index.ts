/** The CRM records module's public surface. Everything else under src/crm-records is internal (lint enforces it). */
export { CrmRecordsModule } from './crm-records.module';
export { DemoRecordsSeeder } from './demo-records.seeder';
