// `npm test`: every jest project (unit, integration, end-to-end) under Node 24 (fetched from the npm
// registry when the running Node is older). NestJS 12 is ESM-only; our CommonJS code loads it
// through require(esm), which jest allows with --experimental-vm-modules.
// `node scripts/test.mjs --selectProjects reliability` runs other projects (npm run test:reliability).
import { ensureNode24, runToEnd } from './with-node24.mjs';

await ensureNode24();
const args = process.argv.slice(2);
const projects = args.includes('--selectProjects') ? [] : ['--selectProjects', 'unit', 'int', 'e2e'];
// Two workers, not jest's in-band run on a 2-core machine: only workers are recycled by
// workerIdleMemoryLimit (jest.config.js), and one process running every file runs out of heap.
const inBand = args.some((a) => a === '-i' || a === '--runInBand' || a.startsWith('--maxWorkers'));
const workers = inBand || args.includes('--selectProjects') ? [] : ['--maxWorkers=2'];
await runToEnd(
  process.execPath,
  [
    '--experimental-vm-modules',
    '--no-warnings=ExperimentalWarning',
    'node_modules/jest/bin/jest.js',
    ...workers,
    ...args,
    ...projects, // last: --selectProjects takes every word after it (`npm test -- test/e2e/x` stays a path)
  ],
  { env: { ...process.env, LOG_LEVEL: process.env.LOG_LEVEL ?? 'silent' } },
);
