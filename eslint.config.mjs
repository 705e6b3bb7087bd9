import { readdirSync } from 'node:fs';
import js from '@eslint/js';
import prettier from 'eslint-config-prettier';
import tseslint from 'typescript-eslint';

// Module boundaries (docs/architecture.md). Relative specifiers are matched, so each rule names the
// folders it forbids as "one or more ../ then the folder".
// Every folder under src/ is a feature module, except the shared platform/ and the composition
// root's cli/: read from the disk, so a new module is guarded the moment its folder exists.
const NOT_MODULES = new Set(['platform', 'cli']);
const FEATURES = readdirSync(new URL('./src/', import.meta.url), { withFileTypes: true })
  .filter((entry) => entry.isDirectory() && !NOT_MODULES.has(entry.name))
  .map((entry) => entry.name)
  .sort();
const escape = (name) => name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const up = '^(\\.\\./)+';
// A module's public files: its index.ts, and its published contracts when it has them: its queries
// (`<module>.queries.ts`) and the events other modules read (`<module>.events.ts`).
const featureIndexOnly = (self, prefix = up) => ({
  regex: `${prefix}(${FEATURES.filter((f) => f !== self)
    .map(escape)
    .map((f) => `${f}/(?!index$|${f}\\.(queries|events)$)`)
    .join('|')}).+`,
  message:
    'Import another module only through its public index.ts (e.g. ../../oauth), its <module>.queries.ts or its <module>.events.ts, never its internals.',
});
// The platform files a domain/ file may import: pure helpers, no framework and no I/O (add one here
// only if it stays so).
const PURE_PLATFORM = [
  'archive/archive-manifest',
  'archive/retention-rules',
  'commands/decider',
  'errors/hubspot-error',
  'events/envelope',
  'events/event-type-registry',
  'scopes/scope-catalog',
  'security/crypto',
  'tiers',
].map((p) => p.replace(/\//g, '\\/'));
const pureDomain = (self) => [
  {
    // From src/<self>/domain/x.ts: `./y` stays in this domain/; going up may only reach a pure
    // platform helper (or this module's own domain/), never a module (not even through its index).
    regex: `^\\.\\.(\\/(?!\\.\\.\\/(platform\\/(${PURE_PLATFORM.join('|')})|${self}\\/domain\\/.+)$)|$)`,
    message: `domain/ is pure: it imports its own domain/ and the pure platform helpers of eslint.config.mjs only.`,
  },
  {
    regex: '^(@nestjs/|fastify|@fastify/|better-sqlite3|@eventstore/|pino|prom-client|rxjs)',
    message: 'domain/ is pure: no framework, store or logging imports.',
  },
  {
    regex: '^(node:)?(fs|net|http|https|http2|child_process|worker_threads|cluster|dgram|dns|tls)(/|$)',
    message: 'domain/ is pure: no I/O.',
  },
];

/**
 * One list of forbidden specifiers, checked on static imports and exports (no-restricted-imports)
 * and on `import('...')` and `require('...')` with a literal specifier (no-restricted-syntax), so
 * a dynamic import cannot cross a boundary the static one may not.
 */
const forbid = (patterns) => {
  const selectorRegex = (regex) => `/${regex.replace(/(?<!\\)\//g, '\\/')}/`;
  return {
    'no-restricted-imports': ['error', { patterns }],
    'no-restricted-syntax': [
      'error',
      ...patterns.flatMap(({ regex, message }) => [
        { selector: `ImportExpression[source.value=${selectorRegex(regex)}]`, message },
        {
          selector: `CallExpression[callee.name="require"][arguments.0.value=${selectorRegex(regex)}]`,
          message,
        },
      ]),
    ],
  };
};

const boundaries = [
  {
    files: ['src/platform/**/*.ts'],
    rules: forbid([
      {
        regex: `${up}(${FEATURES.map(escape).join('|')}|app\\.factory|feature-modules|main)(/|$)`,
        message: 'platform/ is shared by every module and imports none of them.',
      },
    ]),
  },
  ...FEATURES.map((feature) => ({
    files: [`src/${feature}/**/*.ts`],
    ignores: [`src/${feature}/domain/**`],
    rules: forbid([featureIndexOnly(feature)]),
  })),
  // Pure domain: deciders, events and rules; no framework, no I/O, no other module.
  ...FEATURES.map((feature) => ({
    files: [`src/${feature}/domain/**/*.ts`],
    rules: forbid(pureDomain(feature)),
  })),
  {
    // src/*.ts sit beside the modules: their imports start with ./ instead.
    files: ['src/*.ts'],
    rules: forbid([featureIndexOnly('-', '^\\./')]),
  },
  {
    files: ['src/cli/**/*.ts'],
    rules: forbid([featureIndexOnly('-')]),
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
