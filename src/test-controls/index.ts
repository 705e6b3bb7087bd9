/**
 * The test controls' public surface: the module, and the hook's one registration point for
 * app.factory. Everything else under src/test-controls is internal (lint enforces it).
 */
export { TestControlsModule } from './test-controls.module';
export { installFaultInjection } from './http/fault-injection';
// The faults in force and their counts (the console lists them).
export { FaultRegistry, type FaultView } from './application/fault-registry';
// The admin API's fault commands and its reading of a fault (the console's forms send the same).
export { ClearAppFaults, ClearFault, SetFault } from './application/app-faults.commands';
export { parseFaultSpec } from './domain/fault-spec';
