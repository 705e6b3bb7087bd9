import { randomUUID } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyBaseLogger } from 'fastify';

/**
 * Requests Node's HTTP parser refuses before Fastify sees them (a space or NUL in the request
 * line, NUL in a header, headers over the limit, a request timeout) still get HubSpot's Error
 * body with a correlation id, written on the raw socket, which is then closed. A request that was
 * not received within REQUEST_TIMEOUT_MS (a trickled body) is logged, so that the bound is seen
 * when it is hit. Fastify calls this with itself as `this`, hence its logger.
 */
export function hubSpotClientErrorHandler(
  this: { log?: Pick<FastifyBaseLogger, 'warn'> } | undefined,
  error: Error & { code?: string },
  socket: Socket,
): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const [status, category, message] =
    error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
      ? [408, 'TIMEOUT', 'The request was not received in time.']
      : error.code === 'HPE_HEADER_OVERFLOW'
        ? [431, 'VALIDATION_ERROR', 'The request headers are too large.']
        : [400, 'VALIDATION_ERROR', 'The request could not be parsed as HTTP.'];
  const correlationId = randomUUID();
  if (status === 408) {
    this?.log?.warn(
      { correlationId, remoteAddress: socket.remoteAddress },
      'Request not received within REQUEST_TIMEOUT_MS: answered 408 and closed the connection',
    );
  }
  const body = JSON.stringify({ status: 'error', message, correlationId, category });
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n` +
        `Content-Type: application/json;charset=utf-8\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\n` +
        `X-HubSpot-Correlation-Id: ${correlationId}\r\n` +
        `Connection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy();
}
