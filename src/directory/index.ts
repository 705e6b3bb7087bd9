/**
 * The directory's public surface (accounts, users, apps): its module, the account types, the
 * demo seeder and the fixtures (FIXTURES) here; its queries (DirectoryQueries and the views it answers with) in
 * `directory.queries.ts`, which other modules import directly. Everything else under src/directory
 * is internal (lint enforces it).
 */
export { DirectoryModule } from './directory.module';
export { ACCOUNT_TYPES } from './domain/account-settings';
export { DemoSeeder } from './seed/demo-seeder';
export { Fixtures, type AppliedFixtures } from './fixtures/fixtures';
export {
  FixturesError,
  fixturesSchemaForOpenApi,
  loadFixtures,
  parseFixtures,
  type FixturesDocument,
} from './fixtures/fixtures-file';
