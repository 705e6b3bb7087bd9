/**
 * The test controls' public surface: the module, and the hook's one registration point for
 * app.factory. Everything else under src/controls is internal (lint enforces it).
 */
export { ControlsModule } from './test-controls.module';
export { installFaultInjection } from './http/fault-injection';
