/** The pipelines module's public surface; its reads are in crm-pipelines.queries.ts. */
export { CrmPipelinesModule } from './crm-pipelines.module';
