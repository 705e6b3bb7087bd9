import type { Server, ServerOptions } from 'node:http';
import type { Logger } from 'pino';

/**
 * The HTTP server's own bounds on slow or idle clients. Fastify's defaults switch Node's request
 * timeout off, so a body trickled one byte every few seconds held its connection (and a file
 * descriptor) for as long as the client liked. `requestTimeout` is the time to receive a whole
 * request, headers and body; past it Node answers 408 (hubSpotClientErrorHandler, logged) and
 * closes. Node looks for expired requests every `connectionsCheckingInterval` (30 s by default),
 * so that interval is made a fraction of the timeout for the bound to hold close to its value.
 */
export function serverTimeouts(requestTimeoutMs: number): { requestTimeout: number; http: ServerOptions } {
  return {
    requestTimeout: requestTimeoutMs,
    http: {
      requestTimeout: requestTimeoutMs,
      // Node requires headersTimeout <= requestTimeout; 60 s is its own default.
      headersTimeout: Math.min(60_000, requestTimeoutMs),
      connectionsCheckingInterval: Math.max(25, Math.min(1000, Math.floor(requestTimeoutMs / 4))),
    },
  };
}

/** How often a run of dropped connections is summarised in the log at most. */
const DROP_LOG_INTERVAL_MS = 10_000;

/**
 * At most `maxConnections` open connections: Node closes any connection past it as soon as it is
 * accepted, before anything is read ('drop'). Logged at once the first time, then at most once per
 * DROP_LOG_INTERVAL_MS with the number dropped meanwhile (a flood of connections must not become a
 * flood of log lines).
 */
export function boundConnections(
  server: Server,
  maxConnections: number,
  logger: Pick<Logger, 'warn'>,
  now: () => number = () => performance.now(),
): void {
  server.maxConnections = maxConnections;
  let dropped = 0;
  let lastLoggedAt = -Infinity;
  server.on('drop', (data?: { remoteAddress?: string }) => {
    dropped++;
    const at = now();
    if (at - lastLoggedAt < DROP_LOG_INTERVAL_MS) return;
    logger.warn(
      { maxConnections, dropped, remoteAddress: data?.remoteAddress },
      `Connection limit reached (MAX_CONNECTIONS=${maxConnections}): ${dropped} new connection(s) closed unanswered`,
    );
    lastLoggedAt = at;
    dropped = 0;
  });
}
