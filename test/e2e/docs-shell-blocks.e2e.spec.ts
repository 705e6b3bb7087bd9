import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { allShellBlocks, ShellBlock, SKIP_MARK } from '../support/docs-shell-blocks';
import { childEnv } from '../support/child-env';
import { ensureBuilt, ServiceProcess, startService, waitForExit } from '../support/service-process';

/**
 * Issue 39: every shell block of README.md and docs/*.md runs as written. The blocks of one file run
 * in order in one bash session (`set -euo pipefail`: a variable no block set, such as an id the docs
 * forgot to ask the service for, fails it) against a fresh demo service on a free loopback port.
 * What the docs tell the reader to set is set: `B` (the service's address) and `ADMIN_KEY` (the
 * banner's admin key); `127.0.0.1:3000` / `localhost:3000` in a block mean that service. Every HTTP
 * answer is checked: no 5xx, and a 4xx only where its block names that status (e.g. `# 401`).
 * A block whose first line is `# Not run by the docs test: <reason>` is listed, not run.
 */
const ROOT = join(__dirname, '..', '..');
const BLOCKS = allShellBlocks(ROOT);
const FILES = [...new Set(BLOCKS.filter((b) => b.skipped === null).map((b) => b.file))];
const NODE_DIR = dirname(process.execPath);

jest.setTimeout(120_000);

describe('the docs’ shell blocks, as written', () => {
  beforeAll(() => ensureBuilt(), 120_000);

  it('are each run or marked with the reason they are not', () => {
    expect(BLOCKS.length).toBeGreaterThan(20);
    const skipped = BLOCKS.filter((b) => b.skipped !== null);
    for (const b of skipped) expect(b.skipped).toMatch(/\S{3,}/);
    process.stderr.write(
      `\n[docs-shell-blocks] ${BLOCKS.length - skipped.length} blocks run, ${skipped.length} not run:\n` +
        skipped.map((b) => `  ${b.file}:${b.line} — ${b.skipped}\n`).join('') +
        '\n',
    );
    // A mark anywhere but the first line would be a comment the test ignores: refuse it.
    for (const b of BLOCKS) expect(b.code.split('\n').slice(1).join('\n')).not.toContain(SKIP_MARK);
  });

  describe.each(FILES)('%s', (file) => {
    let service: ServiceProcess;
    let dataDir: string;
    let outDir: string;
    beforeAll(async () => {
      dataDir = mkdtempSync(join(tmpdir(), 'docs-blocks-data-'));
      outDir = mkdtempSync(join(tmpdir(), 'docs-blocks-out-'));
      service = await startService({ DATA_DIR: dataDir, SEED: 'demo' });
    }, 90_000);
    afterAll(async () => {
      if (service) {
        service.child.kill('SIGTERM');
        await waitForExit(service.child);
      }
      rmSync(dataDir, { recursive: true, force: true });
      rmSync(outDir, { recursive: true, force: true });
    });

    it('runs every block in order, with no unset variable, no 5xx and only the 4xx it names', () => {
      const adminKey = /Admin API key +(\S+)/.exec(service.output())?.[1];
      expect(adminKey).toBeDefined();
      const blocks = BLOCKS.filter((b) => b.file === file && b.skipped === null);
      const r = spawnSync('bash', ['-c', script(blocks, service.port, outDir)], {
        cwd: ROOT,
        encoding: 'utf8',
        timeout: 90_000,
        env: childEnv({
          PATH: `${NODE_DIR}:${process.env.PATH ?? ''}`,
          B: service.url,
          ADMIN_KEY: adminKey!,
          DOCS_OUT: outDir,
        }),
      });
      const where = /^docs-test: block (\d+)$/m;
      const failedAt = [...r.stderr.matchAll(new RegExp(where, 'gm'))].pop()?.[1];
      if (r.status !== 0) {
        const block = blocks[Number(failedAt ?? 0)]!;
        throw new Error(
          `${file}:${block.line}: the block failed (exit ${r.status}${r.signal ? `, ${r.signal}` : ''})\n` +
            `--- stderr ---\n${r.stderr.slice(-3000)}\n--- stdout ---\n${r.stdout.slice(-3000)}`,
        );
      }
      // Every answer the blocks received, from curl's header dumps (one file per request).
      const answers = readdirSync(outDir).map((f) => {
        const [, block] = /^h-(\d+)-/.exec(f)!;
        const statuses = [...readFileSync(join(outDir, f), 'utf8').matchAll(/^HTTP\/[\d.]+ (\d{3})/gm)]
          .map((m) => Number(m[1]))
          .filter((s) => s >= 200);
        return { block: blocks[Number(block)]!, status: statuses.pop() ?? 0 };
      });
      expect(answers.length).toBeGreaterThan(0);
      const wrong = answers.filter(
        ({ block, status }) =>
          status === 0 || status >= 500 || (status >= 400 && !new RegExp(`\\b${status}\\b`).test(block.code)),
      );
      expect(wrong.map(({ block, status }) => `${file}:${block.line} answered ${status}`)).toEqual([]);
    });
  });
});

/** One bash session: the blocks in order, each announced on stderr, curl's answers dumped per request. */
function script(blocks: ShellBlock[], port: number, out: string): string {
  const lines = [
    'set -euo pipefail',
    // -D: the status line and headers of every answer into a file of its own (command substitution
    // runs curl in a subshell, so the name comes from mktemp, not from a counter).
    `curl() { command curl -D "$(mktemp "${out}/h-$DOCS_BLOCK-XXXXXX")" "$@"; }`,
  ];
  blocks.forEach((b, i) => {
    lines.push(`DOCS_BLOCK=${i}`, `echo 'docs-test: block ${i}' >&2`);
    lines.push(b.code.replace(/\b(127\.0\.0\.1|localhost):3000\b/g, `127.0.0.1:${port}`));
  });
  return `${lines.join('\n')}\n`;
}
