/** The CRM schema module's public surface. Everything else under src/crm-schema is internal (lint enforces it). */
export { CrmSchemaModule } from './crm-schema.module';
