import type { FastifyReply } from 'fastify';
import { CANNOT_CONNECT, PageError } from './page-error';

function noStore(reply: FastifyReply): FastifyReply {
  return reply.header('cache-control', 'no-store').header('pragma', 'no-cache');
}

/**
 * The pages need no script, so their policy is stricter than the global one: nothing but inline
 * style, forms only to this origin (and, after approval, the app's http(s) redirect URI), never
 * framed. No `upgrade-insecure-requests`: it would turn the page's own form posts into https on
 * a plain-http demo host.
 */
const PAGE_CSP = [
  "default-src 'none'",
  "style-src 'unsafe-inline'",
  "img-src 'self' data:",
  "form-action 'self' http: https:",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join('; ');

export function sendHtml(reply: FastifyReply, status: number, body: string): void {
  void noStore(reply)
    .status(status)
    .header('content-security-policy', PAGE_CSP)
    .header('content-type', 'text/html; charset=utf-8')
    .send(body);
}

/** After a form POST that only moves between steps: 303 makes the browser GET the next step. */
export function seeOther(reply: FastifyReply, location: string): void {
  checkLocation(location);
  void noStore(reply).status(303).header('location', location).send();
}

/** The final redirect to the app, as HubSpot does it: 302. */
export function found(reply: FastifyReply, location: string): void {
  checkLocation(location);
  void noStore(reply).status(302).header('location', location).send();
}

/**
 * A redirect URL registered before control characters were refused (or any location that is not a
 * valid header value) answers the error page, never a 500 from the header write.
 */
function checkLocation(location: string): void {
  if (/[^\u0020-\u007e\u0080-\u00ff]/.test(location)) {
    throw new PageError(400, CANNOT_CONNECT, 'The redirect URL registered for this app cannot be used in a redirect.');
  }
}
