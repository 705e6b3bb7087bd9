import fastifyHelmet from '@fastify/helmet';
import Fastify from 'fastify';
import { registerSecurityHeaders, SECURITY_HEADERS } from '../../src/shared/http/security-headers';

/** The helmet options app.factory.ts used; the constant header set must equal what helmet sends with them. */
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
};

const VARYING = new Set(['content-type', 'content-length', 'date', 'connection']);

async function headersOf(setup: (f: ReturnType<typeof Fastify>) => Promise<void> | void) {
  const f = Fastify();
  await setup(f);
  f.get('/json', async () => ({ ok: true }));
  f.get('/own-csp', async (_req, reply) => reply.header('content-security-policy', "default-src 'none'").send('x'));
  const json = await f.inject({ method: 'GET', url: '/json' });
  const own = await f.inject({ method: 'GET', url: '/own-csp' });
  const missing = await f.inject({ method: 'GET', url: '/nope' });
  await f.close();
  const strip = (h: Record<string, unknown>) => Object.fromEntries(Object.entries(h).filter(([k]) => !VARYING.has(k)));
  return { json: strip(json.headers), ownCsp: own.headers['content-security-policy'], missing: strip(missing.headers) };
}

describe('security headers computed once', () => {
  it('are exactly the headers @fastify/helmet sends with the service options', async () => {
    const helmet = await headersOf(
      (f) => f.register(fastifyHelmet as never, HELMET_OPTIONS) as unknown as Promise<void>,
    );
    const ours = await headersOf((f) => registerSecurityHeaders(f as never));
    expect(ours).toEqual(helmet);
    expect(ours.json).toEqual(SECURITY_HEADERS);
  });

  it('forbid framing, sniffing and referrers and never upgrade plain-http form posts', () => {
    const csp = SECURITY_HEADERS['content-security-policy']!;
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toContain('upgrade-insecure-requests');
    expect(SECURITY_HEADERS['referrer-policy']).toBe('no-referrer');
    expect(SECURITY_HEADERS['x-content-type-options']).toBe('nosniff');
    expect(SECURITY_HEADERS['x-frame-options']).toBe('SAMEORIGIN');
  });
});
