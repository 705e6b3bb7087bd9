import js from '@eslint/js';
import prettier from 'eslint-config-prettier';
import tseslint from 'typescript-eslint';

// Module boundaries (docs/architecture.md). Relative specifiers are matched, so each rule names the
// folders it forbids as "one or more ../ then the folder".
const FEATURES = ['oauth', 'cards', 'limits', 'directory', 'ops'];
const up = '^(\\.\\./)+';
const featureIndexOnly = (self) => ({
  regex: `${up}(${FEATURES.filter((f) => f !== self).join('|')})/(?!index$).+`,
  message: 'Import another module only through its public index.ts (e.g. ../../oauth), never its internals.',
});
const boundaries = [
  {
    files: ['src/platform/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: `${up}(${FEATURES.join('|')}|app\\.factory|feature-modules|main)(/|$)`,
              message: 'platform/ is shared by every module and imports none of them.',
            },
          ],
        },
      ],
    },
  },
  ...FEATURES.map((feature) => ({
    files: [`src/${feature}/**/*.ts`],
    ignores: [`src/${feature}/domain/**`],
    rules: { 'no-restricted-imports': ['error', { patterns: [featureIndexOnly(feature)] }] },
  })),
  {
    // Pure domain: deciders, events and rules; no framework, no I/O.
    files: ['src/*/domain/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            featureIndexOnly('-'),
            {
              regex: '^(@nestjs/|fastify|@fastify/|better-sqlite3|@eventstore/|pino|prom-client|rxjs)',
              message: 'domain/ is pure: no framework, store or logging imports.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['src/*.ts', 'src/cli/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [featureIndexOnly('-')] }] },
  },
];

export default tseslint.config(
  { ignores: ['node_modules/**', 'dist/**', 'coverage/**', 'data/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  prettier,
  {
    languageOptions: {
      globals: {
        process: 'readonly',
        console: 'readonly',
        Buffer: 'readonly',
        __dirname: 'readonly',
        module: 'writable',
        require: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        setImmediate: 'readonly',
        URL: 'readonly',
        URLSearchParams: 'readonly',
        fetch: 'readonly',
      },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' },
      ],
      '@typescript-eslint/no-require-imports': 'off',
    },
  },
  ...boundaries,
);
