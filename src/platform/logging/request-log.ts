import { LogController, type FastifyReply, type FastifyRequest } from 'fastify';
import pino, { type DestinationStream, type Logger } from 'pino';
import { logSecretsOf, type LogSecrets } from './log-secrets';
import { LINE_OPTIONS } from './logger';
import { redactUrl } from './redact-url';

/** Called once per finished request (the metrics' histogram), before its log line. */
export type RequestObserver = (request: FastifyRequest, reply: FastifyReply) => void;

/**
 * Fastify's per-request logging, in one line instead of two ("incoming request" at the start,
 * "request completed" at the end): written once the answer is sent, at `info` (at `error` when the
 * response stream failed), with what an operator needs: the correlation id, method, routed path
 * (the route's pattern, never a token), the URL as redacted by redactUrl, status and time in ms.
 * The correlation id is a field of the line, so no per-request child logger is made for it. The
 * same hook point records the request's metric, so no onResponse hook is needed.
 *
 * The line goes to the service logger's own stream, in its format, through a logger without its
 * redaction paths: they match nested objects (`*.password`, `req.headers.authorization`) and this
 * line is flat, built only of the fields above (the URL already redacted), so pino's walk over it
 * would find nothing and cost a sixth of the line. An error line keeps the service logger.
 */
export class OneLinePerRequest extends LogController {
  private readonly lineLogger: Logger;
  private readonly secrets: LogSecrets | undefined;
  private readonly stream: DestinationStream;
  private readonly time = LINE_OPTIONS.timestamp;

  constructor(
    private readonly logger: Logger,
    private readonly observe: RequestObserver = () => undefined,
  ) {
    super({ requestIdLogLabel: 'correlationId' });
    const stream = (logger as unknown as Record<symbol, DestinationStream>)[pino.symbols.streamSym];
    this.stream = stream;
    // Kept for its level (the line is written directly, in its format: requestLineJson).
    this.lineLogger = pino({ level: logger.level, ...LINE_OPTIONS }, stream);
    this.secrets = logSecretsOf(logger);
  }

  override incomingRequest(): void {
    // Written with the answer (requestCompleted): one line per request.
  }

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    this.observe(request, reply);
    if (!(error ? this.logger : this.lineLogger).isLevelEnabled(error ? 'error' : 'info')) return;
    const line: RequestLine = {
      correlationId: request.id,
      method: request.method,
      route: request.routeOptions.url ?? null,
      url: redactUrl(request.url, request.routeOptions.url, this.secrets),
      status: reply.statusCode,
      ms: Math.round(reply.elapsedTime * 100) / 100,
    };
    if (error) this.logger.error({ ...line, err: error }, 'request errored');
    else this.stream.write(requestLineJson(line, this.time()));
  }
}

/** The fields of the `request` line, in the order they are written. */
export interface RequestLine {
  correlationId: string;
  method: string;
  route: string | null;
  url: string;
  status: number;
  ms: number;
}

/**
 * The `request` line as pino writes it with LINE_OPTIONS (level 30, the time, the fields, `msg`),
 * built directly: its fields are fixed and flat, and pino's generic walk over them was half the
 * line's cost. log-line.unit.spec.ts holds it to pino's own output.
 */
export function requestLineJson(line: RequestLine, time: string): string {
  return (
    `{"level":30${time},"correlationId":${JSON.stringify(line.correlationId)},"method":${JSON.stringify(line.method)}` +
    `,"route":${line.route === null ? 'null' : JSON.stringify(line.route)},"url":${JSON.stringify(line.url)}` +
    `,"status":${Number.isFinite(line.status) ? line.status : null},"ms":${Number.isFinite(line.ms) ? line.ms : null},"msg":"request"}\n`
  );
}
