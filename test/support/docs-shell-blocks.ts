import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** A shell code block of the docs, and why it is not run when its first line says so. */
export interface ShellBlock {
  file: string;
  /** 1-based line of the opening fence. */
  line: number;
  code: string;
  /** The reason given by a first line `# Not run by the docs test: <reason>`; null when the block runs. */
  skipped: string | null;
}

export const SKIP_MARK = '# Not run by the docs test:';
const FENCE = /^( *)```(sh|bash|shell)\s*$/;

/** The ```sh / ```bash / ```shell blocks of one Markdown text, indentation of list items removed. */
export function shellBlocks(file: string, markdown: string): ShellBlock[] {
  const lines = markdown.split('\n');
  const blocks: ShellBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = FENCE.exec(lines[i]!);
    if (!open) continue;
    const indent = open[1]!;
    const body: string[] = [];
    let j = i + 1;
    for (; j < lines.length && lines[j]!.trim() !== '```'; j++)
      body.push(lines[j]!.startsWith(indent) ? lines[j]!.slice(indent.length) : lines[j]!);
    if (j === lines.length) throw new Error(`${file}:${i + 1}: a code block that is never closed`);
    const first = body[0]?.trim() ?? '';
    const skipped = first.startsWith(SKIP_MARK) ? first.slice(SKIP_MARK.length).trim() : null;
    blocks.push({ file, line: i + 1, code: `${body.join('\n')}\n`, skipped });
    i = j;
  }
  return blocks;
}

/** README.md and every docs/*.md of the repository, in that order. */
export function docsFiles(root: string): string[] {
  return [
    'README.md',
    ...readdirSync(join(root, 'docs'))
      .filter((f) => f.endsWith('.md'))
      .sort()
      .map((f) => `docs/${f}`),
  ];
}

export function allShellBlocks(root: string): ShellBlock[] {
  return docsFiles(root).flatMap((f) => shellBlocks(f, readFileSync(join(root, f), 'utf8')));
}
