import type { FastifyReply } from 'fastify';
import { PageError } from '../../src/oauth/install-page/page-error';
import { found, seeOther } from '../../src/oauth/install-page/page-responses';

/** A reply that records what is set, as Node would send it: header values are checked on write. */
function recordingReply() {
  const headers: Record<string, string> = {};
  let status = 0;
  const reply = {
    header(name: string, value: string) {
      headers[name] = value;
      return reply;
    },
    status(code: number) {
      status = code;
      return reply;
    },
    send() {
      return reply;
    },
  };
  return { reply: reply as unknown as FastifyReply, headers, status: () => status };
}

describe('install page redirects never 500 (issue 14, finding 8)', () => {
  it('redirects to a clean location', () => {
    const r = recordingReply();
    found(r.reply, 'https://app.example.com/cb?code=abc&state=x%0Ay');
    expect(r.status()).toBe(302);
    expect(r.headers.location).toBe('https://app.example.com/cb?code=abc&state=x%0Ay');
  });

  it.each([
    ['TAB', 'https://app.example.com/c\tb?code=abc'],
    ['CR/LF', 'https://app.example.com/cb\r\nSet-Cookie: a=1?code=abc'],
    ['U+2028', 'https://app.example.com/cb\u2028?code=abc'],
    ['NUL', 'https://app.example.com/cb\u0000?code=abc'],
  ])('answers the error page (PageError 400) instead of a redirect whose location has %s', (_, location) => {
    for (const redirect of [found, seeOther]) {
      const r = recordingReply();
      expect(() => redirect(r.reply, location)).toThrow(PageError);
      expect(r.headers.location).toBeUndefined();
    }
  });
});
