import { ArgumentsHost, Catch, ExceptionFilter, Logger } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { toHubSpotError } from './error-mapping';
import { toErrorBody } from './hubspot-error';

/** Every error leaves as HubSpot's Error object, with the request's correlation id. */
@Catch()
export class HubSpotExceptionFilter implements ExceptionFilter {
  private readonly logger = new Logger('HttpError');

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const request = http.getRequest<FastifyRequest>();
    const reply = http.getResponse<FastifyReply>();
    sendHubSpotError(exception, request, reply, this.logger);
  }
}

export function sendHubSpotError(
  exception: unknown,
  request: FastifyRequest,
  reply: FastifyReply,
  logger: Pick<Logger, 'error'>,
): void {
  const { error, isBug } = toHubSpotError(exception);
  const correlationId = String(request.id);
  if (isBug) {
    const e = exception as Error;
    logger.error({ correlationId, err: { name: e?.name, message: e?.message, stack: e?.stack } }, 'unhandled error');
  }
  if (reply.sent) return;
  for (const [k, v] of Object.entries(error.extras.headers ?? {})) void reply.header(k, v);
  void reply
    .status(error.httpStatus)
    .header('content-type', 'application/json;charset=utf-8')
    .send(toErrorBody(error, correlationId));
}
