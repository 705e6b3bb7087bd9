/** Health, readiness and metrics endpoints. */
export { OpsModule } from './ops.module';
