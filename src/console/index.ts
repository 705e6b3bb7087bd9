/** The console's public surface: its module. Everything else under src/console is internal (lint enforces it). */
export { ConsoleModule } from './console.module';
