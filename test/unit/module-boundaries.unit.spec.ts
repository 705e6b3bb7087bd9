import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..');

/** Lints one would-be file through the project's own ESLint config; returns the rules that fired. */
function lint(path: string, code: string): string[] {
  const r = spawnSync(
    process.execPath,
    ['node_modules/eslint/bin/eslint.js', '--format', 'json', '--stdin', '--stdin-filename', path],
    { cwd: ROOT, input: code, encoding: 'utf8' },
  );
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

  it('a module reaching into another module’s internals fails; its index.ts is allowed', () => {
    expect(lint('src/cards/http/x.ts', uses('../../oauth/domain/access-token'))).toContain('no-restricted-imports');
    expect(lint('src/limits/x.ts', uses('../directory/directory.queries'))).toContain('no-restricted-imports');
    expect(lint('src/cards/http/x.ts', uses('../../oauth'))).toEqual([]);
    expect(lint('src/cards/http/x.ts', uses('../../platform/clock'))).toEqual([]);
  });

  it('domain/ stays pure: framework imports fail', () => {
    expect(lint('src/limits/domain/x.ts', uses('@nestjs/common', 'Injectable'))).toContain('no-restricted-imports');
    expect(lint('src/oauth/domain/x.ts', uses('better-sqlite3', 'Database'))).toContain('no-restricted-imports');
    expect(lint('src/oauth/domain/x.ts', uses('../../platform/tiers', 'TIERS'))).toEqual([]);
  });
});
