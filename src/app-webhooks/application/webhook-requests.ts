import http from 'node:http';
import https from 'node:https';

/** Stored of an answer's body, for the delivery log. */
export const RESPONSE_BODY_KEPT = 1024;
/**
 * A kept-alive connection idle this long is closed by this side: under the 5 s Node's and most
 * servers' keep-alive timeout, so a request does not go out on a socket the receiver is closing.
 */
const IDLE_SOCKET_MS = 4000;

/** What a delivery request came back with: a status (and its body, 1 KiB), or why there was none. */
export interface WebhookAnswer {
  statusCode: number | null;
  retryAfter: string | null;
  /** Null when no status came, or the body was cut off (a timeout or a reset while it was read). */
  responseBody: string | null;
  /** `timeout`, `connection refused`, `connection failed (…)`; null once a status came. */
  error: string | null;
}

/**
 * The delivery requests: `node:http`/`node:https` with a keep-alive agent per scheme (each pools
 * its sockets per target host), rather than `fetch`, whose per-request JS (headers lists, streams,
 * abort signals) and garbage were a large part of what a delivery cost the API's event loop.
 * Redirects are not followed (an answer with a 3xx status is what it is); the whole exchange has
 * `timeoutMs`, as `AbortSignal.timeout` gave `fetch`.
 */
export class WebhookRequests {
  private readonly agents = {
    'http:': new http.Agent({ keepAlive: true, timeout: IDLE_SOCKET_MS, scheduling: 'lifo' }),
    'https:': new https.Agent({ keepAlive: true, timeout: IDLE_SOCKET_MS, scheduling: 'lifo' }),
  };

  post(url: string, headers: Record<string, string>, body: string, timeoutMs: number): Promise<WebhookAnswer> {
    return new Promise((resolve) => {
      const answer: WebhookAnswer = { statusCode: null, retryAfter: null, responseBody: null, error: null };
      let settled = false;
      const settle = (error: string | null) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        if (answer.statusCode === null) answer.error = error ?? 'connection failed (closed)';
        resolve(answer);
      };
      let target: URL;
      try {
        target = new URL(url);
      } catch {
        settled = true;
        resolve({ ...answer, error: 'connection failed (invalid URL)' });
        return;
      }
      const secure = target.protocol === 'https:';
      const payload = Buffer.from(body, 'utf8');
      const request = (secure ? https : http).request(
        target,
        {
          method: 'POST',
          agent: this.agents[secure ? 'https:' : 'http:'],
          headers: { ...headers, 'Content-Length': String(payload.length) },
        },
        (response) => {
          answer.statusCode = response.statusCode ?? null;
          const retryAfter = response.headers['retry-after'];
          answer.retryAfter = typeof retryAfter === 'string' ? retryAfter : null;
          let text = '';
          response.setEncoding('utf8');
          // Read to the end (so the socket can be reused), keeping only the start.
          response.on('data', (chunk: string) => {
            if (text.length < RESPONSE_BODY_KEPT) text += chunk;
          });
          response.on('end', () => {
            answer.responseBody = text.slice(0, RESPONSE_BODY_KEPT);
            settle(null);
          });
          response.on('error', () => settle(null));
          response.on('close', () => settle(null));
        },
      );
      const timer = setTimeout(() => {
        settle('timeout');
        request.destroy();
      }, timeoutMs);
      request.on('error', (error) => settle(failureOf(error)));
      // Closed before any answer (an answer's own end settles through the response).
      request.on('close', () => {
        if (answer.statusCode === null) settle(null);
      });
      request.end(payload);
    });
  }

  /** Closes the kept-alive sockets (the service is stopping). */
  close(): void {
    this.agents['http:'].destroy();
    this.agents['https:'].destroy();
  }
}

/** HubSpot's failure classes for a request with no answer: all are retried. */
export function failureOf(error: unknown): string {
  const e = error as { code?: string; message?: string; errors?: { code?: string }[] };
  // A host with several addresses (happy eyeballs) fails with every address's error at once.
  const code = e.code ?? e.errors?.find((x) => x.code)?.code;
  if (code === 'ECONNREFUSED') return 'connection refused';
  if (code) return `connection failed (${code})`;
  return `connection failed (${(e.message ?? 'unknown').slice(0, 200)})`;
}
