import 'reflect-metadata';
// The modules register their event types (and upcasters) when loaded: export decodes through them.
import '../feature-modules';
import '../ops';
import '../directory';
import { assertExportableStore, exportEvents, parseExportRange } from '../platform/archive/audit-export';

/**
 * `npm run -s audit:export -- --from <position|ISO date> --to <position|ISO date>`: the audit trail
 * of DATA_DIR, live and archived events merged in position order, as NDJSON on stdout. Reads only;
 * safe while the service runs. SQLite only: refuses when EVENTSTORE_CONNECTION_STRING is set.
 */
async function main(): Promise<void> {
  assertExportableStore(process.env);
  const range = parseExportRange(process.argv.slice(2));
  const dataDir = process.env.DATA_DIR || './data';
  for (const line of exportEvents(dataDir, range)) {
    if (!process.stdout.write(line + '\n')) await new Promise((resolve) => process.stdout.once('drain', resolve));
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`audit export failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
