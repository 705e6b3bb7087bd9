/** The CRM search module's public surface. Everything else under src/crm-search is internal (lint enforces it). */
export { CrmSearchModule } from './crm-search.module';
