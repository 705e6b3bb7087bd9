import type { Logger } from '@nestjs/common';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { sendHubSpotError } from '../errors/hubspot-exception.filter';
import { API_SECURITY_HEADERS } from './security-headers';

/**
 * Fastify's `frameworkErrors`: the router's refusals of a path (malformed percent-encoding, a path
 * segment past `maxParamLength`: 414) before any route exists for the request. Such a reply runs
 * no route's hooks, so the onSend hook that stamps every other answer never sees it: the
 * correlation id header and the API security headers are set here, then the HubSpot Error body
 * is sent as for any other error.
 */
export function frameworkErrorHandler(
  logger: Pick<Logger, 'error'>,
): (error: FastifyError, request: FastifyRequest, reply: FastifyReply) => void {
  return (error, request, reply) => {
    void reply.headers(API_SECURITY_HEADERS).header('x-hubspot-correlation-id', String(request.id));
    sendHubSpotError(error, request, reply, logger);
  };
}
