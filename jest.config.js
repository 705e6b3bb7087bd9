// NestJS 12 ships as ES modules; our code compiles to CommonJS and loads it through Node's
// require(esm), which jest allows only with --experimental-vm-modules (see scripts/test.mjs).
// ts-jest transpiles file by file (isolatedModules); `npm run lint` type-checks the whole project.
const transform = { '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.jest.json' }] };
const base = {
  testEnvironment: 'node',
  transform,
  moduleFileExtensions: ['ts', 'js', 'json'],
  rootDir: __dirname,
};
module.exports = {
  // 30 s a test or hook (jest's default is 5 s): many e2e files start a whole service in beforeAll, and
  // on a loaded 2-core machine that alone can pass 5 s. Tests still wait on events, never on time.
  testTimeout: 30_000, // a global option: jest ignores it inside `projects`
  // The suite is ~230 files; a process that runs them all grows past V8's 4 GB heap (each file's
  // ES-module graph stays behind). Workers are recycled once they hold more than this after a file.
  workerIdleMemoryLimit: '1GB',
  projects: [
    { ...base, displayName: 'unit', testMatch: ['<rootDir>/test/**/*.unit.spec.ts'] },
    { ...base, displayName: 'int', testMatch: ['<rootDir>/test/**/*.int.spec.ts'] },
    { ...base, displayName: 'e2e', testMatch: ['<rootDir>/test/**/*.e2e.spec.ts'] },
    { ...base, displayName: 'reliability', testMatch: ['<rootDir>/test/reliability/**/*.spec.ts'] },
  ],
};
