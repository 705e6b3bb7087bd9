import { spawnSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..');

/** Lints one would-be file through the project's own ESLint config; returns the rules that fired. */
function lint(path: string, code: string): string[] {
  return eslint(['--stdin', '--stdin-filename', path], code);
}

/** Lints files on disk through the project's own ESLint config; returns the rules that fired. */
function lintFile(path: string): string[] {
  return eslint([path]);
}

function eslint(args: string[], input?: string): string[] {
  const r = spawnSync(process.execPath, ['node_modules/eslint/bin/eslint.js', '--format', 'json', ...args], {
    cwd: ROOT,
    input,
    encoding: 'utf8',
  });
  if (r.status !== 0 && r.status !== 1) throw new Error(`eslint failed: ${r.stderr}`);
  const [result] = JSON.parse(r.stdout) as Array<{ messages: Array<{ ruleId: string | null; message: string }> }>;
  return result!.messages.map((m) => m.ruleId ?? m.message);
}

const uses = (specifier: string, name = 'X') => `import { ${name} } from '${specifier}';\nexport const y = ${name};\n`;

/**
 * The module boundaries of docs/architecture.md fail `npm run lint`: these cases lint code that
 * crosses them (and code that does not) through the real config, as CI's lint step would.
 */
describe('module boundaries (npm run lint)', () => {
  it('platform/ importing a feature module fails, even through its index', () => {
    expect(lint('src/platform/commands/x.ts', uses('../../oauth'))).toContain('no-restricted-imports');
    expect(lint('src/platform/x.ts', uses('../directory/directory.queries'))).toContain('no-restricted-imports');
  });

  it('a module reaching into another module’s internals fails; its index.ts and its queries file are allowed', () => {
    expect(lint('src/cards/http/x.ts', uses('../../oauth/domain/access-token'))).toContain('no-restricted-imports');
    expect(lint('src/crm-schema/x.ts', uses('../directory/directory.module'))).toContain('no-restricted-imports');
    expect(lint('src/crm-schema/x.ts', uses('../directory/domain/directory-events'))).toContain(
      'no-restricted-imports',
    );
    // Only the module's own `<module>.queries.ts`: a queries file named for another module is internal.
    expect(lint('src/crm-schema/x.ts', uses('../cards/directory.queries'))).toContain('no-restricted-imports');
    expect(lint('src/crm-schema/x.ts', uses('../oauth/application/install.queries'))).toContain(
      'no-restricted-imports',
    );
    expect(lint('src/crm-schema/x.ts', uses('../directory/directory.queries'))).toEqual([]);
    expect(lint('src/crm-schema/http/x.ts', uses('../../directory/directory.queries'))).toEqual([]);
    // The same for the events a module publishes (`<module>.events.ts`).
    expect(lint('src/cards/projections/x.ts', uses('../../oauth/oauth.events'))).toEqual([]);
    expect(lint('src/cards/projections/x.ts', uses('../../oauth/domain/oauth-events'))).toContain(
      'no-restricted-imports',
    );
    expect(lint('src/crm-schema/x.ts', uses('../cards/oauth.events'))).toContain('no-restricted-imports');
    expect(lint('src/main.ts', uses('./oauth/application/token.service'))).toContain('no-restricted-imports');
    expect(lint('src/main.ts', uses('./oauth'))).toEqual([]);
    expect(lint('src/cards/http/x.ts', uses('../../oauth'))).toEqual([]);
    expect(lint('src/cards/http/x.ts', uses('../../platform/clock'))).toEqual([]);
  });

  it('domain/ stays pure: framework imports fail', () => {
    expect(lint('src/crm-schema/domain/x.ts', uses('@nestjs/common', 'Injectable'))).toContain('no-restricted-imports');
    expect(lint('src/oauth/domain/x.ts', uses('better-sqlite3', 'Database'))).toContain('no-restricted-imports');
    expect(lint('src/oauth/domain/x.ts', uses('../../platform/tiers', 'TIERS'))).toEqual([]);
  });

  it('domain/ imports no module, not even through its index, nor its own module outside domain/', () => {
    expect(lint('src/crm-schema/domain/x.ts', uses('../../oauth'))).toContain('no-restricted-imports');
    expect(lint('src/crm-schema/domain/x.ts', uses('../../cards/domain/card-events'))).toContain(
      'no-restricted-imports',
    );
    expect(lint('src/crm-schema/domain/x.ts', uses('../application/limits.queries'))).toContain(
      'no-restricted-imports',
    );
    expect(lint('src/crm-schema/domain/x.ts', uses('..'))).toContain('no-restricted-imports');
    expect(lint('src/oauth/domain/x.ts', uses('node:fs', 'readFileSync'))).toContain('no-restricted-imports');
  });

  it('domain/ may import only the pure platform helpers, and its own domain/', () => {
    expect(lint('src/crm-schema/domain/x.ts', uses('../../platform/event-store/event-store.port'))).toContain(
      'no-restricted-imports',
    );
    expect(lint('src/ops/domain/x.ts', uses('../../platform/projections/projection-runner'))).toContain(
      'no-restricted-imports',
    );
    expect(lint('src/crm-schema/domain/x.ts', uses('./limits-events'))).toEqual([]);
    expect(lint('src/crm-schema/domain/x.ts', uses('../../crm-schema/domain/ceilings'))).toEqual([]);
    expect(lint('src/crm-schema/domain/x.ts', uses('../../platform/commands/decider'))).toEqual([]);
    expect(lint('src/ops/domain/x.ts', uses('../../platform/archive/retention-rules'))).toEqual([]);
    expect(lint('src/ops/domain/x.ts', uses('../../platform/archive/archive-manifest'))).toEqual([]);
    expect(lint('src/ops/domain/x.ts', uses('../../platform/archive/archive-files'))).toContain(
      'no-restricted-imports',
    );
    expect(lint('src/oauth/domain/x.ts', uses('node:crypto', 'randomBytes'))).toEqual([]);
  });

  it('a dynamic import() or require() of a forbidden path fails like a static import', () => {
    const dynamic = (specifier: string) => `export const load = () => import('${specifier}');\n`;
    const required = (specifier: string) => `export const x = require('${specifier}');\n`;
    expect(lint('src/platform/x.ts', dynamic('../oauth'))).toContain('no-restricted-syntax');
    expect(lint('src/cards/http/x.ts', dynamic('../../oauth/domain/access-token'))).toContain('no-restricted-syntax');
    expect(lint('src/cards/http/x.ts', required('../../oauth/domain/access-token'))).toContain('no-restricted-syntax');
    expect(lint('src/crm-schema/domain/x.ts', dynamic('../../oauth'))).toContain('no-restricted-syntax');
    expect(lint('src/crm-schema/domain/x.ts', dynamic('@nestjs/common'))).toContain('no-restricted-syntax');
    expect(lint('src/main.ts', dynamic('./oauth/application/token.service'))).toContain('no-restricted-syntax');
    expect(lint('src/cards/http/x.ts', dynamic('../../directory/domain/directory-events'))).toContain(
      'no-restricted-syntax',
    );
    expect(lint('src/cards/http/x.ts', dynamic('../../oauth'))).toEqual([]);
    expect(lint('src/cards/http/x.ts', dynamic('../../directory/directory.queries'))).toEqual([]);
    expect(lint('src/platform/x.ts', dynamic('./clock'))).toEqual([]);
  });

  it('a new folder under src/ is a guarded module the moment it exists, with no edit to the lint config', () => {
    // A throw-away module on disk: the lint's module list is read from the folders under src/.
    const name = `zz-boundary-probe-${process.pid}`;
    const dir = join(ROOT, 'src', name);
    mkdirSync(join(dir, 'domain'), { recursive: true });
    try {
      writeFileSync(join(dir, 'reaches-in.ts'), uses('../oauth/domain/access-token'));
      writeFileSync(join(dir, 'through-index.ts'), uses('../oauth'));
      writeFileSync(join(dir, 'domain', 'impure.ts'), uses('@nestjs/common', 'Injectable'));
      expect(lintFile(`src/${name}/reaches-in.ts`)).toContain('no-restricted-imports');
      expect(lintFile(`src/${name}/through-index.ts`)).toEqual([]);
      expect(lintFile(`src/${name}/domain/impure.ts`)).toContain('no-restricted-imports');
      // ...and the other modules may not reach into it either.
      expect(lint('src/cards/http/x.ts', uses(`../../${name}/domain/impure`))).toContain('no-restricted-imports');
      expect(lint('src/platform/x.ts', uses(`../${name}`))).toContain('no-restricted-imports');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
