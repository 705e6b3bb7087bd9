/** The CRM search module's public surface. Everything else under src/crm-search is internal (lint enforces it). */
export { CrmSearchModule } from './crm-search.module';
// Accounts' search lag and the admin API's command that sets it (the console shows and sets it).
export { SearchLags, SetSearchLag } from './application/search-lag';
export { MAX_SEARCH_LAG_MS } from './domain/search-lag';
