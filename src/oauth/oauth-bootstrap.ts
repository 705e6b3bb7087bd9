import { Injectable, OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { FastifyInstance } from 'fastify';
import { sendHubSpotError } from '../platform/errors/hubspot-exception.filter';
import { nonFormOAuthRequestPath, nonFormRequest, TOKEN_PATH, unsupportedContentType } from './http/token-request';

/** Start-up wiring of the OAuth module: the token endpoint's content-type gate. */
@Injectable()
export class OAuthBootstrap implements OnModuleInit {
  constructor(private readonly adapterHost: HttpAdapterHost) {}

  onModuleInit(): void {
    // The token endpoints read forms only. A JSON (or any other) body is answered before it is
    // parsed, with HubSpot's BAD_GRANT_TYPE (v1) or invalid_request (2026-03), not a parser error.
    const fastify = this.adapterHost.httpAdapter.getInstance<FastifyInstance>();
    const logger = { error: () => undefined };
    fastify.addHook('onRequest', (request, reply, done) => {
      const path = nonFormOAuthRequestPath(request);
      if (path === undefined) return done();
      sendHubSpotError(path === TOKEN_PATH ? unsupportedContentType() : nonFormRequest(), request, reply, logger);
    });
  }
}
