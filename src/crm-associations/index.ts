/** The associations module's public surface; its reads are in crm-associations.queries.ts. */
export { CrmAssociationsModule } from './crm-associations.module';
