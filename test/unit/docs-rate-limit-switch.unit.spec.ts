import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Issue 41, item 13: RATE_LIMIT_ENABLED=false switches off HubSpot's limits only; the sign-in lockout
 * and the throttle of failed client authentication are security controls that stay on (README;
 * test/e2e/sign-in-lockout.e2e.spec.ts runs the lockout with it false). No page may say otherwise.
 */
const ROOT = join(__dirname, '..', '..');
const pages = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];

/** Paragraphs and table rows (with the heading of their section) that name the switch. */
function paragraphsNamingTheSwitch(): { page: string; heading: string; text: string }[] {
  const found: { page: string; heading: string; text: string }[] = [];
  for (const page of pages) {
    let heading = '';
    for (const block of readFileSync(join(ROOT, page), 'utf8').split(/\n\s*\n|\n(?=\|)/)) {
      const h = /^#+ (.*)$/m.exec(block);
      if (h) heading = h[1]!;
      if (block.includes('RATE_LIMIT_ENABLED')) found.push({ page, heading, text: block.replace(/\s+/g, ' ') });
    }
  }
  return found;
}

const SECURITY_CONTROL = /sign-in|lockout|lock-out|client[- ]authentication|throttle|password check|both limits/i;
/** A sentence saying the switch turns something off (not one saying what stays on). */
const TURNS_OFF = /RATE_LIMIT_ENABLED=false`? (?:turns|switches) off|off with `?RATE_LIMIT_ENABLED=false/i;

describe('what RATE_LIMIT_ENABLED=false turns off, as the docs tell it', () => {
  const paragraphs = paragraphsNamingTheSwitch();

  it('is told somewhere', () => expect(paragraphs.length).toBeGreaterThan(3));

  it('never includes a security control', () => {
    const wrong = paragraphs.flatMap(({ page, heading, text }) =>
      text
        .split(/(?<=\.)\s+(?=[A-Z`])/)
        .filter((sentence) => TURNS_OFF.test(sentence) && !/\bonly\b/.test(sentence))
        .filter((sentence) => SECURITY_CONTROL.test(sentence) || SECURITY_CONTROL.test(heading))
        .map((sentence) => `${page} (${heading}): ${sentence}`),
    );
    expect(wrong).toEqual([]);
  });

  it('says, where the sign-in lockout and the switches are described, that the controls stay on', () => {
    const section = (page: string, heading: string) => {
      const text = readFileSync(join(ROOT, page), 'utf8');
      const start = text.indexOf(heading);
      expect(start).toBeGreaterThanOrEqual(0);
      const next = text.indexOf('\n#', start + heading.length);
      return text.slice(start, next < 0 ? undefined : next).replace(/\s+/g, ' ');
    };
    expect(section('docs/oauth-errors.md', '## Install page sign-in')).toMatch(
      /always on, whatever `RATE_LIMIT_ENABLED` says/,
    );
    expect(section('docs/reliability.md', '### Switches')).toMatch(/stay on/);
  });
});
