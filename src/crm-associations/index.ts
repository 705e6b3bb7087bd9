/** The associations module's public surface; its reads are in crm-associations.queries.ts. */
export { CrmAssociationsModule } from './crm-associations.module';
// For CRM records: the associations a record create carries (HubSpot's v3 create takes them) are
// made through this module's command, their types looked up in its catalogue.
export { CrmAssociationsCommand } from './application/crm-associations.handler';
export { AssociationCatalogue } from './domain/association-types';
