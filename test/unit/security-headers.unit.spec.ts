import fastifyHelmet from '@fastify/helmet';
import Fastify from 'fastify';
import {
  API_SECURITY_HEADERS,
  DOCUMENT_SECURITY_HEADERS,
  registerSecurityHeaders,
} from '../../src/platform/http/security-headers';

/** The helmet options app.factory.ts used; the document header set must equal what helmet sends with them. */
const HELMET_OPTIONS = {
  contentSecurityPolicy: {
    directives: {
      defaultSrc: ["'self'"],
      styleSrc: ["'self'", "'unsafe-inline'"],
      scriptSrc: ["'self'", "'unsafe-inline'"],
      imgSrc: ["'self'", 'data:'],
      formAction: ["'self'", 'http:', 'https:'],
      frameAncestors: ["'none'"],
      upgradeInsecureRequests: null,
    },
  },
  referrerPolicy: { policy: 'no-referrer' },
  frameguard: { action: 'deny' },
};

const VARYING = new Set(['content-type', 'content-length', 'date', 'connection']);
const OWN_CSP = "default-src 'none'; img-src data:";

async function headersOf(setup: (f: ReturnType<typeof Fastify>) => Promise<void> | void) {
  const f = Fastify();
  await setup(f);
  f.get('/json', async () => ({ ok: true }));
  f.get('/html', async (_req, reply) => reply.type('text/html; charset=utf-8').send('<p>x</p>'));
  f.get('/own-csp', async (_req, reply) =>
    reply.header('content-security-policy', OWN_CSP).type('text/html').send('<p>x</p>'),
  );
  const json = await f.inject({ method: 'GET', url: '/json' });
  const html = await f.inject({ method: 'GET', url: '/html' });
  const own = await f.inject({ method: 'GET', url: '/own-csp' });
  const missing = await f.inject({ method: 'GET', url: '/nope' });
  await f.close();
  const strip = (h: Record<string, unknown>) => Object.fromEntries(Object.entries(h).filter(([k]) => !VARYING.has(k)));
  return {
    json: strip(json.headers),
    html: strip(html.headers),
    own: strip(own.headers),
    missing: strip(missing.headers),
  };
}

describe('security headers computed once', () => {
  it('an HTML answer carries exactly the headers @fastify/helmet sends with the service options', async () => {
    const helmet = await headersOf(
      (f) => f.register(fastifyHelmet as never, HELMET_OPTIONS) as unknown as Promise<void>,
    );
    const ours = await headersOf((f) => registerSecurityHeaders(f as never));
    expect(ours.html).toEqual(helmet.html);
    expect(ours.html).toEqual(DOCUMENT_SECURITY_HEADERS);
    // A route's own header wins over the document set, as with helmet; the rest is still added.
    expect(ours.own).toEqual(helmet.own);
    expect(ours.own['content-security-policy']).toBe(OWN_CSP);
  });

  it('a JSON answer (success or not found) carries the API set only', async () => {
    const ours = await headersOf((f) => registerSecurityHeaders(f as never));
    expect(ours.json).toEqual(API_SECURITY_HEADERS);
    expect(ours.missing).toEqual(API_SECURITY_HEADERS);
  });

  it('forbid framing, sniffing and referrers and never upgrade plain-http form posts', () => {
    const csp = DOCUMENT_SECURITY_HEADERS['content-security-policy']!;
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toContain('upgrade-insecure-requests');
    expect(DOCUMENT_SECURITY_HEADERS['referrer-policy']).toBe('no-referrer');
    expect(DOCUMENT_SECURITY_HEADERS['x-content-type-options']).toBe('nosniff');
    // What the README promises, for HTML pages too (issue 14, finding 11).
    expect(DOCUMENT_SECURITY_HEADERS['x-frame-options']).toBe('DENY');
    // OWASP REST Security Cheat Sheet: APIs forbid framing and any content loading outright.
    expect(API_SECURITY_HEADERS['content-security-policy']).toBe("default-src 'none'; frame-ancestors 'none'");
    expect(API_SECURITY_HEADERS['x-frame-options']).toBe('DENY');
    expect(API_SECURITY_HEADERS['x-content-type-options']).toBe('nosniff');
    expect(API_SECURITY_HEADERS['strict-transport-security']).toMatch(/^max-age=\d+/);
  });
});
