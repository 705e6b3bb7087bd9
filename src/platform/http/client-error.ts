import { randomUUID } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';

/**
 * Requests Node's HTTP parser refuses before Fastify sees them (a space or NUL in the request
 * line, NUL in a header, headers over the limit, a request timeout) still get HubSpot's Error
 * body with a correlation id, written on the raw socket, which is then closed.
 */
export function hubSpotClientErrorHandler(error: Error & { code?: string }, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const [status, category, message] =
    error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
      ? [408, 'TIMEOUT', 'The request was not received in time.']
      : error.code === 'HPE_HEADER_OVERFLOW'
        ? [431, 'VALIDATION_ERROR', 'The request headers are too large.']
        : [400, 'VALIDATION_ERROR', 'The request could not be parsed as HTTP.'];
  const correlationId = randomUUID();
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
