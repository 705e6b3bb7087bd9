/**
 * CRM search as other modules may run it (the lint allows this file): a type resolved for search,
 * a request built under HubSpot's rules (its errors are HubSpot's 400s), the search itself.
 */
export { CrmSearchQueries, type SearchAnswer, type SearchResultView } from './application/crm-search.queries';
export {
  searchRequestFrom,
  SEARCH_OPERATORS,
  type SearchOperator,
  type SearchRequestInput,
} from './domain/search-request';
