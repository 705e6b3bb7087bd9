/**
 * The directory's public surface (accounts, users, apps): its module, its queries and the demo
 * seeder. Everything else under src/directory is internal (lint enforces it).
 */
export { DirectoryModule } from './directory.module';
export {
  DirectoryQueries,
  type AccountDetailsView,
  type AccountView,
  type AccountWithSettings,
  type AppView,
  type DeveloperApiKeyView,
  type UserView,
} from './directory.queries';
export { ACCOUNT_TYPES } from './domain/account-settings';
export { DemoSeeder } from './seed/demo-seeder';
