import { LogController, type FastifyReply, type FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import { redactUrl } from './redact-url';

/** Called once per finished request (the metrics' histogram), before its log line. */
export type RequestObserver = (request: FastifyRequest, reply: FastifyReply) => void;

/**
 * Fastify's per-request logging, in one line instead of two ("incoming request" at the start,
 * "request completed" at the end): written once the answer is sent, at `info` (at `error` when the
 * response stream failed), with what an operator needs: the correlation id, method, routed path
 * (the route's pattern, never a token), the URL as redacted by redactUrl, status and time in ms.
 * It is the root logger's line with the correlation id as a field, so no per-request child logger
 * is made for it. The same hook point records the request's metric, so no onResponse hook is needed.
 */
export class OneLinePerRequest extends LogController {
  constructor(
    private readonly logger: Logger,
    private readonly observe: RequestObserver = () => undefined,
  ) {
    super({ requestIdLogLabel: 'correlationId' });
  }

  override incomingRequest(): void {
    // Written with the answer (requestCompleted): one line per request.
  }

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    this.observe(request, reply);
    if (!this.logger.isLevelEnabled(error ? 'error' : 'info')) return;
    const line = {
      correlationId: request.id,
      method: request.method,
      route: request.routeOptions.url ?? null,
      url: redactUrl(request.url, request.routeOptions.url),
      status: reply.statusCode,
      ms: Math.round(reply.elapsedTime * 100) / 100,
    };
    if (error) this.logger.error({ ...line, err: error }, 'request errored');
    else this.logger.info(line, 'request');
  }
}
