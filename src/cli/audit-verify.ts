import { ArchiveFiles } from '../platform/archive/archive-files';

/**
 * `npm run audit:verify`: every archive file of DATA_DIR against the manifest (size, SHA-256 of
 * the file and of each batch's segment, event counts and positions). Exit code 1 on any problem.
 */
function main(): void {
  const dataDir = process.env.DATA_DIR || './data';
  const result = new ArchiveFiles(dataDir).verify();
  for (const p of result.problems) process.stderr.write(`audit verify: ${p}\n`);
  process.stdout.write(
    `${result.problems.length === 0 ? 'ok' : 'FAILED'}: ${result.files} archive files, ${result.events} events, ${result.problems.length} problems\n`,
  );
  process.exit(result.problems.length === 0 ? 0 : 1);
}

main();
