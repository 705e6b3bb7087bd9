/** The Limits module's public surface. Everything else under src/limits is internal (lint enforces it). */
export { LimitsModule } from './crm-schema.module';
