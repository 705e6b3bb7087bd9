import { Inject, Injectable, Logger, type INestApplicationContext } from '@nestjs/common';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Counter } from 'prom-client';
import { DirectoryQueries } from '../../directory/directory.queries';
import { requestAppResolver, type RequestApp } from '../../oauth';
import { CLOCK, type Clock } from '../../platform/clock';
import { APP_CONFIG, type AppConfig } from '../../platform/config/config';
import { sendHubSpotError } from '../../platform/errors/hubspot-exception.filter';
import { routeAuthenticationOf } from '../../platform/http/authentication';
import { Metrics } from '../../platform/metrics/metrics';
import { sha256Hex } from '../../platform/security/crypto';
import { FaultRegistry, type FaultSubject } from '../application/fault-registry';
import { faultAnswer } from './fault-answers';

/** Longer than any developer API key we issue; longer ones are not looked up (the route refuses them). */
const MAX_KEY_LENGTH = 200;

/**
 * Applies the faults of FaultRegistry to requests, in Fastify's preHandler hook: after the body is
 * read and the early credential checks ran, before the route's guard and handler, so an injected
 * answer never reaches a command and never changes state. A request is the app's when it carries
 * the app's bearer token, its client credentials at the token endpoints, or its developer
 * account's API key (`?hapikey=`, on the routes that accept one: for the app the route names, not
 * the account's other apps); anything else (the admin API, the
 * install page, bad credentials) is never faulted. Each injected answer is counted in /metrics
 * (`test_faults_injected_total`) and logged at info with its fault id.
 */
@Injectable()
export class FaultInjector {
  private readonly injected: Counter<'kind'>;
  private readonly logger = new Logger('Faults');
  private appOf: (request: FastifyRequest) => RequestApp | null = () => null;

  constructor(
    private readonly registry: FaultRegistry,
    private readonly directory: DirectoryQueries,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(CLOCK) private readonly clock: Clock,
    metrics: Metrics,
  ) {
    this.injected = new Counter({
      name: 'test_faults_injected_total',
      help: 'Answers replaced or delayed by a test-control fault, per kind',
      labelNames: ['kind'] as const,
      registers: [metrics.registry],
    });
  }

  /** Adds the hook; before app.init(), so it applies to every route. */
  install(app: INestApplicationContext, fastify: FastifyInstance): void {
    this.appOf = requestAppResolver(app);
    fastify.addHook('preHandler', (request, reply, done) => {
      // No fault set anywhere (the usual case): one property read per request.
      if (this.registry.isEmpty) return done();
      this.apply(request, reply, done);
    });
  }

  private apply(request: FastifyRequest, reply: FastifyReply, done: () => void): void {
    const subject = this.subjectOf(request);
    if (subject === null) return done();
    const hit = this.registry.take(subject, { method: request.method, path: requestPath(request.url) });
    if (hit === null) return done();
    const { response } = hit;
    this.injected.inc({ kind: response.kind });
    request.log.info({ faultId: hit.faultId, appId: hit.appId, fault: response }, 'fault injected');
    switch (response.kind) {
      case 'latency':
        setTimeout(done, response.ms);
        return;
      case 'reset':
        // No answer at all: the connection is dropped, as a proxy or HubSpot's edge sometimes does.
        reply.hijack();
        reply.raw.destroy();
        return;
      default: {
        const hubId = subject.hubId;
        const error = faultAnswer(response, {
          appId: hit.appId,
          hubId,
          tier: hubId === null ? null : (this.directory.getAccount(hubId)?.tier ?? null),
          publicAppLimit: { windowMs: this.config.rateLimit.windowMs, max: this.config.rateLimit.max },
          now: this.clock.now(),
        });
        sendHubSpotError(error, request, reply, this.logger);
      }
    }
  }

  private subjectOf(request: FastifyRequest): FaultSubject | null {
    const kind = routeAuthenticationOf(request.routeOptions.config);
    if (kind === 'admin') return null;
    if (kind === 'developer' && request.headers.authorization === undefined) {
      const hapikey = (request.query as Record<string, unknown> | undefined)?.hapikey;
      if (typeof hapikey !== 'string' || hapikey.length === 0 || hapikey.length > MAX_KEY_LENGTH) return null;
      // The request is for the app its route names (every developer-key route has `:appId`).
      const appId = appIdParam(request.params);
      if (appId === null) return null;
      const key = this.directory.findDeveloperApiKeyByHash(sha256Hex(hapikey));
      return key ? { appId, developerHubId: key.hubId, hubId: key.hubId } : null;
    }
    const app = this.appOf(request);
    return app ? { appId: app.appId, hubId: app.hubId } : null;
  }
}

/** The route's `:appId`, as its IntParamPipe reads it (decimal digits, a positive int32); null otherwise. */
function appIdParam(params: unknown): number | null {
  const raw = (params as Record<string, unknown> | undefined)?.appId;
  if (typeof raw !== 'string' || !/^\d{1,10}$/.test(raw)) return null;
  const appId = Number(raw);
  return appId >= 1 && appId <= 2_147_483_647 ? appId : null;
}

/** The request's path without its query, each segment percent-decoded (what the route saw). */
export function requestPath(url: string): string {
  const q = url.indexOf('?');
  let raw = q < 0 ? url : url.slice(0, q);
  if (!raw.startsWith('/')) {
    try {
      raw = new URL(raw).pathname; // absolute-form request target
    } catch {
      return raw;
    }
  }
  return raw
    .split('/')
    .map((segment) => {
      try {
        return decodeURIComponent(segment);
      } catch {
        return segment;
      }
    })
    .join('/');
}

/** The one registration point (app.factory): does nothing when the controls module is not loaded. */
export function installFaultInjection(app: INestApplicationContext, fastify: FastifyInstance): void {
  let injector: FaultInjector;
  try {
    injector = app.get(FaultInjector, { strict: false });
  } catch {
    return;
  }
  injector.install(app, fastify);
}
