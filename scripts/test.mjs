// `npm test`: every jest project (unit, integration, end-to-end). NestJS 12 is ESM-only; our
// CommonJS code loads it through require(esm), which jest allows with --experimental-vm-modules.
import { spawnSync } from 'node:child_process';

const major = Number(process.versions.node.split('.')[0]);
if (major < 24) {
  console.error(`Node ${process.versions.node} is too old: tests need Node 24. Run: source scripts/node24.sh`);
  process.exit(1);
}
const args = [
  '--experimental-vm-modules',
  '--no-warnings=ExperimentalWarning',
  'node_modules/jest/bin/jest.js',
  '--selectProjects',
  'unit',
  'int',
  'e2e',
  ...process.argv.slice(2),
];
const r = spawnSync(process.execPath, args, {
  stdio: 'inherit',
  env: { ...process.env, LOG_LEVEL: process.env.LOG_LEVEL ?? 'silent' },
});
process.exit(r.status ?? 1);
