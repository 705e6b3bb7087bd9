import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

/**
 * Headers for answers a browser renders as a document (the install page, the API docs): exactly
 * what `@fastify/helmet` sent with this service's options, computed once (helmet rebuilds its
 * middleware chain on every request, about half a bare route's throughput).
 */
export const DOCUMENT_SECURITY_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'content-security-policy': [
    "default-src 'self'",
    "base-uri 'self'",
    "font-src 'self' https: data:",
    "form-action 'self' http: https:",
    "frame-ancestors 'none'",
    "img-src 'self' data:",
    "object-src 'none'",
    "script-src 'self' 'unsafe-inline'",
    "script-src-attr 'none'",
    "style-src 'self' 'unsafe-inline'",
    // No upgrade-insecure-requests: plain-http deployments (the demo) must not have their form posts upgraded.
  ].join(';'),
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
  'origin-agent-cluster': '?1',
  'referrer-policy': 'no-referrer',
  'strict-transport-security': 'max-age=31536000; includeSubDomains',
  'x-content-type-options': 'nosniff',
  'x-dns-prefetch-control': 'off',
  'x-download-options': 'noopen',
  // DENY, as the README says and frame-ancestors 'none' already means: no page of ours is framed.
  'x-frame-options': 'DENY',
  'x-permitted-cross-domain-policies': 'none',
  'x-xss-protection': '0',
});

/**
 * Headers on every answer, JSON included: the OWASP REST Security Cheat Sheet's set for APIs.
 * A JSON body is never rendered, so the document-only headers (script policy, opener and
 * agent-cluster isolation, download and DNS-prefetch switches) protect nothing there, and each
 * costs bytes on the hottest endpoints. A response that turns out to be HTML gets the document
 * set on top (see registerSecurityHeaders).
 */
export const API_SECURITY_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'content-security-policy': "default-src 'none'; frame-ancestors 'none'",
  'cross-origin-resource-policy': 'same-origin',
  'strict-transport-security': DOCUMENT_SECURITY_HEADERS['strict-transport-security']!,
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
});

const isHtml = (contentType: unknown) => typeof contentType === 'string' && contentType.startsWith('text/html');

/**
 * Sets API_SECURITY_HEADERS before the route runs (so a route can override one, as with helmet);
 * an HTML answer then also gets DOCUMENT_SECURITY_HEADERS, except where its route set a header
 * of its own (the install page's stricter CSP).
 */
export function registerSecurityHeaders(
  fastify: FastifyInstance,
  /** Anything else every answer needs just before it is sent: done in the same hook (one hook less per request). */
  alsoOnSend: (request: FastifyRequest, reply: FastifyReply) => void = () => undefined,
): void {
  fastify.addHook('onRequest', (_request, reply, done) => {
    void reply.headers(API_SECURITY_HEADERS);
    done();
  });
  fastify.addHook('onSend', (request, reply, payload, done) => {
    alsoOnSend(request, reply);
    if (isHtml(reply.getHeader('content-type'))) {
      for (const [name, value] of Object.entries(DOCUMENT_SECURITY_HEADERS)) {
        const current = reply.getHeader(name);
        if (current === undefined || current === API_SECURITY_HEADERS[name]) void reply.header(name, value);
      }
    }
    done(null, payload);
  });
}
