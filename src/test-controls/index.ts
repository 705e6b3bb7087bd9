/**
 * The test controls' public surface: the module, and the hook's one registration point for
 * app.factory. Everything else under src/test-controls is internal (lint enforces it).
 */
export { TestControlsModule } from './test-controls.module';
export { installFaultInjection } from './http/fault-injection';
