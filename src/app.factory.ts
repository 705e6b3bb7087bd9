import 'reflect-metadata';
import fastifyCookie from '@fastify/cookie';
import { Logger, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, NestFastifyApplication } from '@nestjs/platform-fastify';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { randomUUID } from 'node:crypto';
import type { Logger as PinoLogger } from 'pino';
import type { AppConfig } from './platform/config/config';
import { CoreModule } from './platform/core/core.module';
import { DataDirLock } from './platform/core/data-dir-lock';
import { DirectoryModule } from './directory';
import type { FeatureModule } from './feature-modules';
import { Metrics } from './platform/metrics/metrics';
import { OpsModule } from './ops';
import type { Clock, MonotonicClock } from './platform/clock';
import type { EventStore } from './platform/event-store/event-store.port';
import { HubSpotExceptionFilter, sendHubSpotError } from './platform/errors/hubspot-exception.filter';
import { routeBodyLimit } from './platform/http/body-limits';
import { hubSpotClientErrorHandler } from './platform/http/client-error';
import { frameworkErrorHandler } from './platform/http/framework-errors';
import { boundConnections, serverTimeouts } from './platform/http/connection-bounds';
import { Authenticators } from './platform/http/authentication';
import { checkJsonBounds } from './platform/http/json-body-bounds';
import { registerSecurityHeaders } from './platform/http/security-headers';
import { HubSpotValidationPipe } from './platform/http/validation';
import { installRateLimits, RateLimitModule } from './oauth';
import { installFaultInjection } from './test-controls';
import { lazyChildLoggerFactory } from './platform/logging/lazy-child-logger';
import { configSecrets, logSecretsOf } from './platform/logging/log-secrets';
import { createLogger, PinoNestLogger } from './platform/logging/logger';
import { OneLinePerRequest } from './platform/logging/request-log';
import { AdminKey } from './platform/security/admin-key';

/**
 * @hubspot/api-client's apiRequest sends `Content-Type: application/json` on every call, a bodiless
 * DELETE included; HubSpot answers those, so an empty DELETE body is no body at all (rather than
 * Fastify's "empty JSON body" 400). A DELETE that does carry bytes is parsed as before.
 */
function ignoreContentTypeOfEmptyDelete(request: FastifyRequest, _reply: FastifyReply, done: () => void): void {
  if (
    request.method === 'DELETE' &&
    request.headers['content-type'] !== undefined &&
    request.headers['transfer-encoding'] === undefined &&
    (request.headers['content-length'] === undefined || request.headers['content-length'] === '0')
  ) {
    delete request.headers['content-type'];
  }
  done();
}

export interface CreateAppOptions {
  config: AppConfig;
  clock: Clock;
  /** Lock durations (tests hand in their ManualClock); the system's monotonic clock otherwise. */
  monotonicClock?: MonotonicClock;
  eventStore?: EventStore;
  /** Feature modules (OAuth, Cards, Limits) plug in here. */
  modules?: FeatureModule[];
  logger?: PinoLogger;
}

/** Builds the whole service; main.ts and the end-to-end tests use the same function. */
export async function createApp(options: CreateAppOptions): Promise<NestFastifyApplication> {
  // One service per DATA_DIR, and no start on a lost events.sqlite: before anything opens a file.
  const dataDirLock = DataDirLock.acquireFor(options.config.dataDir, {
    embeddedStore: !options.eventStore && !options.config.eventStoreConnectionString,
  });
  try {
    return await buildApp(options, dataDirLock);
  } catch (error) {
    dataDirLock.release(); // a failed start in a process that goes on (tests, CLIs) frees DATA_DIR
    throw error;
  }
}

async function buildApp(options: CreateAppOptions, dataDirLock: DataDirLock): Promise<NestFastifyApplication> {
  const { config } = options;
  const logger = options.logger ?? createLogger(config.logLevel);
  // The secrets of the configuration are redacted from the log by value (log-secrets.ts).
  logSecretsOf(logger)?.add(...configSecrets(config));
  // Each finished request: its metric, then its one log line (no onResponse hook on any route).
  let observe = (_request: FastifyRequest, _reply: FastifyReply): void => undefined;

  @Module({
    imports: [
      CoreModule.forRoot({
        config,
        clock: options.clock,
        monotonicClock: options.monotonicClock,
        eventStore: options.eventStore,
        dataDirLock,
      }),
      OpsModule,
      DirectoryModule,
      RateLimitModule,
      ...(options.modules ?? []),
    ],
  })
  class AppModule {}

  const adapter = new FastifyAdapter({
    loggerInstance: logger,
    genReqId: () => randomUUID(),
    requestIdHeader: false, // the correlation id is ours, never the caller's
    logController: new OneLinePerRequest(logger, (request, reply) => observe(request, reply)),
    // The per-request child logger is made only when the request logs something.
    childLoggerFactory: lazyChildLoggerFactory as never,
    bodyLimit: config.bodyLimitBytes,
    routerOptions: { maxParamLength: 2048 }, // access tokens in the path are up to 512 characters
    // Who the client is behind a TLS proxy (throttles key on request.ip); off unless configured.
    // Fastify 5 takes a bare number as "trust no hop" (a hop count cannot check the immediate
    // peer), so TRUST_PROXY=<n> is given as a function trusting the n nearest hops, whoever sent
    // them: only for a port no client reaches except through the proxy (README, TRUST_PROXY).
    trustProxy:
      typeof config.trustProxy === 'number'
        ? (
            (hops: number) => (_address: string, hop: number) =>
              hop < hops
          )(config.trustProxy)
        : config.trustProxy,
    return503OnClosing: true,
    // Time to receive a whole request (a trickled body gets 408 and is closed), and to keep an idle
    // keep-alive connection; see connection-bounds.ts.
    ...serverTimeouts(config.requestTimeoutMs, config.keepAliveTimeoutMs),
    // Requests Node's HTTP parser refuses (bad request line, NUL in headers, huge headers).
    clientErrorHandler: hubSpotClientErrorHandler,
    // Malformed URLs and the like, rejected by the router before any route or hook runs.
    frameworkErrors: frameworkErrorHandler(new Logger('Http')),
  });

  const app = await NestFactory.create<NestFastifyApplication>(AppModule, adapter, {
    logger: new PinoNestLogger(logger),
    abortOnError: false,
    bodyParser: true,
  });
  // ... and the admin key, generated in demo mode when ADMIN_API_KEY is not set.
  logSecretsOf(logger)?.add(app.get(AdminKey).value);
  const fastify = app.getHttpAdapter().getInstance() as unknown as FastifyInstance;
  boundConnections(fastify.server, config, logger);
  const httpLogger = new Logger('Http');
  // Errors on a route (body parsing and limits, hooks, handlers) leave as HubSpot Error bodies.
  // Set on each route as it is added, before any exists: a route keeps the error handler in force
  // when it was added, and Nest sets the instance's own (its exception layer, which reaches our
  // HubSpotExceptionFilter) only after adding its routes; a second instance-wide handler would
  // replace that one, which Fastify warns about (FSTWRN004).
  const hubSpotErrorHandler = (error: unknown, request: FastifyRequest, reply: FastifyReply) =>
    sendHubSpotError(error, request, reply, httpLogger);
  const authenticators = app.get(Authenticators);
  fastify.addHook('onRoute', (route) => {
    route.errorHandler ??= hubSpotErrorHandler;
    // Each route family gets the body limit its requests need (413 past it, before reading on).
    route.bodyLimit ??= routeBodyLimit(route.url, config);
    // Admin and bearer routes refuse bad credentials in onRequest, before the body is read.
    authenticators.addTo(route, hubSpotErrorHandler);
    // On DELETE routes only: a hook on every route costs every request a function call.
    if ([route.method].flat().includes('DELETE')) {
      route.onRequest = [...[route.onRequest ?? []].flat(), ignoreContentTypeOfEmptyDelete];
    }
  });

  // Only JSON and form bodies (Nest registers both parsers at init) exist in this API;
  // anything else is 415 rather than a string body.
  fastify.removeContentTypeParser('text/plain');
  // JSON bodies nested too deep or with too many keys are refused before JSON.parse sees them;
  // the rest goes to Fastify's own parser (prototype-poisoning checks), as Nest's default does.
  const parseJson = fastify.getDefaultJsonParser('error', 'error');
  app.useBodyParser('application/json', { bodyLimit: config.bodyLimitBytes }, (request, body, done) => {
    try {
      checkJsonBounds(body);
    } catch (error) {
      return done(error as Error, undefined);
    }
    parseJson(request as FastifyRequest, body as unknown as string, done); // it takes a Buffer too
  });
  await app.register(fastifyCookie as never);
  // helmet's headers, computed once (helmet itself rebuilds its middleware on every request); the
  // correlation id goes on every answer in the same onSend hook.
  registerSecurityHeaders(fastify, (request, reply) => void reply.header('x-hubspot-correlation-id', request.id));

  const metrics = app.get(Metrics);
  observe = (request, reply) =>
    metrics.httpDuration.observe(
      { method: request.method, route: request.routeOptions.url ?? 'unmatched', status: String(reply.statusCode) },
      reply.elapsedTime / 1000,
    );
  app.useGlobalFilters(new HubSpotExceptionFilter());
  app.useGlobalPipes(new HubSpotValidationPipe());
  // HubSpot's public-app limit and the token endpoint's failed-authentication throttle.
  installRateLimits(app, fastify);
  // Test-control faults (docs/testing-your-app.md), before the guards and handlers; none set: one check.
  installFaultInjection(app, fastify);
  app.enableShutdownHooks();

  const document = SwaggerModule.createDocument(
    app,
    new DocumentBuilder()
      .setTitle('HubSpot public-app service')
      .setDescription('OAuth install flow and tokens, CRM cards migration, CRM limits — HubSpot wire-compatible.')
      .setVersion('1')
      .addBearerAuth()
      .addApiKey({ type: 'apiKey', name: 'hapikey', in: 'query' }, 'developer_hapikey')
      .build(),
  );
  SwaggerModule.setup('docs', app, document, { jsonDocumentUrl: 'docs/json' });

  await app.init();
  await fastify.ready();
  return app;
}
