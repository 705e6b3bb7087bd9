import { shellBlocks } from '../support/docs-shell-blocks';

/** The extractor the docs test runs on: which blocks it finds, how it reads a list item's block and the skip mark. */
describe('shell blocks of a Markdown text', () => {
  const md = [
    '# Title',
    '```sh',
    'echo one',
    '```',
    '```json',
    '{"not":"shell"}',
    '```',
    '1. A step:',
    '',
    '   ```bash',
    '   # Not run by the docs test: starts a container',
    '   docker run x',
    '   ```',
    '```',
    'plain fence',
    '```',
    '```shell',
    'echo two',
    '# Not run by the docs test: only on the first line',
    '```',
  ].join('\n');

  it('finds sh, bash and shell blocks, with their line, without a list item’s indentation', () => {
    expect(shellBlocks('x.md', md)).toEqual([
      { file: 'x.md', line: 2, code: 'echo one\n', skipped: null },
      {
        file: 'x.md',
        line: 10,
        code: '# Not run by the docs test: starts a container\ndocker run x\n',
        skipped: 'starts a container',
      },
      {
        file: 'x.md',
        line: 17,
        code: 'echo two\n# Not run by the docs test: only on the first line\n',
        skipped: null,
      },
    ]);
  });

  it('refuses a block that is never closed', () => {
    expect(() => shellBlocks('x.md', '```sh\necho\n')).toThrow('x.md:1: a code block that is never closed');
  });
});
