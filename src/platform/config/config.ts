/**
 * Configuration from the environment, validated once at start-up. Pure: no framework imports,
 * so the validation is unit-tested directly and a bad value stops the process with a clear message.
 */
import { isIP } from 'node:net';
import { DEFAULT_TIER_LIMITS, TIERS, type Tier, type TierLimits } from '../tiers';

export interface SigningKey {
  kid: string;
  secret: Buffer;
}

export interface AppConfig {
  host: string;
  port: number;
  dataDir: string;
  /** null in demo mode when none was given: the demo generates one and prints it. */
  adminApiKey: string | null;
  eventStoreConnectionString: string | null;
  /**
   * Where the rate-limit counters, throttles and sign-in locks live: null keeps them in this
   * process's memory (one instance); a `redis://` or `rediss://` URL shares them between instances.
   */
  counterStoreUrl: string | null;
  seed: 'demo' | 'none';
  /** FIXTURES: a fixtures file applied at start (after the demo seed), or null. */
  fixturesFile: string | null;
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  /** `auto`: human-readable lines on a terminal, JSON lines into a pipe or a file. */
  logFormat: 'auto' | 'json' | 'pretty';
  /** First key signs; all verify. null: generated and kept in DATA_DIR (single-instance demo). */
  signingKeys: SigningKey[] | null;
  /** Public base URL used in install URLs and redirects printed for people. */
  publicUrl: string;
  bodyLimitBytes: number;
  /** Body limit of the CRM routes (properties, schemas, cards); see platform/http/body-limits.ts. */
  crmBodyLimitBytes: number;
  /** Time a client has to send a whole request, headers and body (a trickled body is cut at it: 408). */
  requestTimeoutMs: number;
  /** Open connections at most; past it new ones are closed at once (and logged). */
  maxConnections: number;
  /**
   * Open connections of one client address (IPv6: one /64) at most, tunnels through the HubSpot
   * hosts front included: a quarter of maxConnections by default, all of it behind a trusted proxy
   * (TRUST_PROXY set: every client then arrives from the proxy's address).
   */
  maxConnectionsPerAddress: number;
  /** How long an idle keep-alive connection is kept after its last answer. */
  keepAliveTimeoutMs: number;
  /**
   * The embedded store's in-memory caches, bounded by (approximate) bytes whatever the events'
   * sizes: the stream cache of recently read aggregates and the live tail the projections read.
   */
  eventCache: { streamCacheBytes: number; liveTailBytes: number; snapshotBytes: number };
  authCodeTtlSeconds: number;
  accessTokenTtlSeconds: number;
  /**
   * HubSpot's public-app limit (per app and account, rolling window) and the throttle of failed
   * client authentication at the token endpoint (per client_id and per address). In memory, per
   * instance, unless `counterStoreUrl` shares them; `enabled: false` switches off HubSpot's limits (benchmarks, most tests), never the
   * throttle of failed client authentication (a security control).
   */
  rateLimit: {
    enabled: boolean;
    windowMs: number;
    max: number;
    clientAuthFailures: { windowMs: number; max: number };
    /** Successful token requests per app and account (refresh grants) or per app (app tokens). */
    tokenRequests: { windowMs: number; max: number };
    /** Calls authenticated by a developer API key (`?hapikey=`), per developer account. */
    developerApiKeyRequests: { windowMs: number; max: number };
  };
  tierLimits: Record<Tier, TierLimits>;
  /** Secret for the sign-in session cookie (32+ bytes); null: generated and kept in DATA_DIR. */
  sessionSecret: Buffer | null;
  /** CONSOLE_ENABLED: the admin console at /console (docs/console.md); false answers its every route 404. */
  consoleEnabled: boolean;
  /**
   * Audit retention: events of streams whose effect has ended move to DATA_DIR/archive once older
   * than `retentionDays` (0 keeps everything live). Runs every `intervalMs` (0: never on its own),
   * at most `batchEvents` events per batch.
   */
  archive: { retentionDays: number; intervalMs: number; batchEvents: number };
  /**
   * App webhook deliveries (docs/webhooks.md): HubSpot's 10 s answer timeout by default; how often
   * the dispatcher looks for retries that came due (on the installs' clocks) when nothing woke it;
   * `enabled: false` stops sending (the outbox still fills); how long an instance's right to send an
   * app's deliveries lasts unrenewed (several instances on EventStoreDB); how long delivered items
   * stay in the delivery log; the delivery thread's nice value (its CPU priority below the API's
   * event loop: 0 leaves it equal).
   */
  webhooks: {
    enabled: boolean;
    timeoutMs: number;
    pollMs: number;
    leaseMs: number;
    retentionDays: number;
    threadNice: number;
  };
  /**
   * Fastify's trustProxy: which X-Forwarded-For hops to believe for the client's address (the
   * sign-in and client-authentication throttles key on it). false: the socket's peer.
   */
  trustProxy: TrustProxy;
  /** Bearer token `/metrics` asks for; null: open (a scraper on a private network). */
  metricsToken: string | null;
  /**
   * Port of the HTTPS CONNECT front for HubSpot's own hosts (docs/testing-your-app.md), on HOST;
   * null (the default): off. 0: any free port (tests).
   */
  hubspotHostsProxyPort: number | null;
  /**
   * Port of the transparent TLS front for HubSpot's own hosts (SNI picks the certificate), on HOST,
   * for clients that ignore proxy settings and reach it through a hosts-file mapping; null (the
   * default): off. 0: any free port (tests). Shares the CA with the CONNECT front.
   */
  hubspotHostsTlsPort: number | null;
}

/** `true` (every hop), a hop count, or the proxies' addresses and CIDR ranges. */
export type TrustProxy = boolean | number | string[];

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

type Env = Record<string, string | undefined>;

export function loadConfig(env: Env): AppConfig {
  const problems: string[] = [];
  const str = (name: string, fallback: string) => {
    const v = env[name];
    return v === undefined || v === '' ? fallback : v;
  };
  const int = (name: string, fallback: number, min: number, max: number) => {
    const raw = env[name];
    if (raw === undefined || raw === '') return fallback;
    if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
      problems.push(`${name} must be an integer from ${min} to ${max} (got "${raw}")`);
      return fallback;
    }
    return Number(raw);
  };
  const oneOf = <T extends string>(name: string, allowed: readonly T[], fallback: T): T => {
    const raw = str(name, fallback);
    if (!(allowed as readonly string[]).includes(raw)) {
      problems.push(`${name} must be one of ${allowed.join(', ')} (got "${raw}")`);
      return fallback;
    }
    return raw as T;
  };
  const bool = (name: string, fallback: boolean) => {
    const raw = env[name];
    if (raw === undefined || raw === '') return fallback;
    if (raw === 'true' || raw === '1') return true;
    if (raw === 'false' || raw === '0') return false;
    problems.push(`${name} must be true or false (got "${raw}")`);
    return fallback;
  };

  const host = str('HOST', '127.0.0.1');
  const port = int('PORT', 3000, 0, 65535);
  const seed = oneOf('SEED', ['demo', 'none'] as const, 'demo');
  const adminApiKey = env.ADMIN_API_KEY ? env.ADMIN_API_KEY : null;
  if (adminApiKey !== null && adminApiKey.length < 16) problems.push('ADMIN_API_KEY must be at least 16 characters');
  if (adminApiKey === null && seed !== 'demo') {
    problems.push('ADMIN_API_KEY is required unless SEED=demo (the demo generates one and prints it)');
  }
  const esdb = env.EVENTSTORE_CONNECTION_STRING ? env.EVENTSTORE_CONNECTION_STRING : null;
  if (esdb !== null && !/^esdb(\+discover)?:\/\//.test(esdb)) {
    problems.push('EVENTSTORE_CONNECTION_STRING must start with esdb:// or esdb+discover://');
  }

  const maxConnections = int('MAX_CONNECTIONS', 1000, 1, 1_000_000);
  const trustProxy = parseTrustProxy(env.TRUST_PROXY, problems);
  const counterStoreUrl = env.COUNTER_STORE_URL ? env.COUNTER_STORE_URL : null;
  if (counterStoreUrl !== null && !isRedisUrl(counterStoreUrl)) {
    problems.push('COUNTER_STORE_URL must be a redis:// or rediss:// URL with a host (e.g. redis://127.0.0.1:6379)');
  }

  const signingKeys = parseSigningKeys(env.TOKEN_SIGNING_KEYS, problems);
  let sessionSecret: Buffer | null = null;
  if (env.SESSION_SECRET) {
    sessionSecret = Buffer.from(env.SESSION_SECRET, 'utf8');
    if (sessionSecret.length < 32) problems.push('SESSION_SECRET must be at least 32 bytes');
  }

  // Several instances share one EventStoreDB: keys generated per instance would make a token or a
  // sign-in session of one instance invalid on the next.
  if (esdb !== null && signingKeys === null) {
    problems.push(
      'TOKEN_SIGNING_KEYS is required with EVENTSTORE_CONNECTION_STRING (every instance must verify every token)',
    );
  }
  if (esdb !== null && sessionSecret === null) {
    problems.push(
      'SESSION_SECRET is required with EVENTSTORE_CONNECTION_STRING (sessions must be valid on every instance)',
    );
  }

  if (env.METRICS_TOKEN && (env.METRICS_TOKEN.length < 16 || /\s/.test(env.METRICS_TOKEN))) {
    problems.push('METRICS_TOKEN must be at least 16 characters, without spaces');
  }

  const rateLimitWindowMs = int('RATE_LIMIT_WINDOW_MS', 10_000, 100, 3_600_000);
  const rateLimitMax = int('RATE_LIMIT_MAX', 110, 1, 1_000_000);
  const tierLimits = parseTierLimits(env.TIER_LIMITS, problems);

  const config: AppConfig = {
    host,
    port,
    dataDir: str('DATA_DIR', './data'),
    adminApiKey,
    eventStoreConnectionString: esdb,
    counterStoreUrl,
    seed,
    fixturesFile: env.FIXTURES ? env.FIXTURES : null,
    logLevel: oneOf('LOG_LEVEL', ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const, 'info'),
    logFormat: oneOf('LOG_FORMAT', ['auto', 'json', 'pretty'] as const, 'auto'),
    signingKeys,
    publicUrl: str('PUBLIC_URL', `http://${host.includes(':') ? `[${host}]` : host}:${port}`).replace(/\/+$/, ''),
    bodyLimitBytes: int('BODY_LIMIT_BYTES', 1024 * 1024, 1024, 64 * 1024 * 1024),
    crmBodyLimitBytes: int('CRM_BODY_LIMIT_BYTES', 256 * 1024, 1024, 64 * 1024 * 1024),
    requestTimeoutMs: int('REQUEST_TIMEOUT_MS', 30_000, 100, 600_000),
    maxConnections,
    maxConnectionsPerAddress: int(
      'MAX_CONNECTIONS_PER_ADDRESS',
      trustProxy === false ? Math.max(1, Math.floor(maxConnections / 4)) : maxConnections,
      1,
      1_000_000,
    ),
    // A few seconds, like Node's own default (5 s): past the clients' usual pause between
    // requests, short enough that idle sockets cannot hold the connection cap (Fastify's 72 s did).
    keepAliveTimeoutMs: int('KEEP_ALIVE_TIMEOUT_MS', 5000, 100, 600_000),
    eventCache: {
      // 8 + 4 MiB by default (issue 29): with the heap of scripts/heap-options.mjs, peak RSS stays under
      // 256 MiB in every bench load scenario (64 + 16 MiB took the code exchange to 310-320 MiB).
      streamCacheBytes: int('STREAM_CACHE_MAX_BYTES', 8 * 1024 * 1024, 0, 4 * 1024 * 1024 * 1024),
      liveTailBytes: int('LIVE_TAIL_MAX_BYTES', 4 * 1024 * 1024, 0, 1024 * 1024 * 1024),
      snapshotBytes: int('SNAPSHOT_CACHE_MAX_BYTES', 32 * 1024 * 1024, 0, 4 * 1024 * 1024 * 1024),
    },
    authCodeTtlSeconds: int('AUTH_CODE_TTL_SECONDS', 300, 60, 600),
    // At most a day: the revocations kept in memory are bounded by it (AccessTokenRevocations).
    accessTokenTtlSeconds: int('ACCESS_TOKEN_TTL_SECONDS', 1800, 1, 86_400),
    rateLimit: {
      enabled: bool('RATE_LIMIT_ENABLED', true),
      windowMs: rateLimitWindowMs,
      max: rateLimitMax,
      clientAuthFailures: {
        windowMs: int('CLIENT_AUTH_FAILURE_WINDOW_MS', 60_000, 1000, 86_400_000),
        max: int('CLIENT_AUTH_FAILURE_MAX', 10, 1, 1_000_000),
      },
      // HubSpot's per-app limit by default, counted apart from the API calls' budget.
      tokenRequests: {
        windowMs: int('TOKEN_RATE_LIMIT_WINDOW_MS', rateLimitWindowMs, 100, 3_600_000),
        max: int('TOKEN_RATE_LIMIT_MAX', rateLimitMax, 1, 1_000_000),
      },
      // HubSpot's API-key burst limit (100 per 10 s on the base tiers), per developer account.
      developerApiKeyRequests: {
        windowMs: rateLimitWindowMs,
        max: int('DEVELOPER_KEY_RATE_LIMIT_MAX', 100, 1, 1_000_000),
      },
    },
    tierLimits,
    sessionSecret,
    consoleEnabled: bool('CONSOLE_ENABLED', true),
    archive: {
      retentionDays: int('AUDIT_RETENTION_DAYS', 90, 0, 36_500),
      intervalMs: int('ARCHIVE_INTERVAL_MS', 60_000, 0, 86_400_000),
      batchEvents: int('ARCHIVE_BATCH_EVENTS', 1000, 1, 1_000_000),
    },
    webhooks: {
      enabled: bool('WEBHOOKS_ENABLED', true),
      timeoutMs: int('WEBHOOK_TIMEOUT_MS', 10_000, 100, 60_000),
      pollMs: int('WEBHOOK_POLL_MS', 250, 10, 60_000),
      leaseMs: int('WEBHOOK_LEASE_MS', 5_000, 1_000, 300_000),
      retentionDays: int('WEBHOOK_RETENTION_DAYS', 30, 1, 3650),
      threadNice: int('WEBHOOK_THREAD_NICE', 10, 0, 19),
    },
    trustProxy,
    metricsToken: env.METRICS_TOKEN ? env.METRICS_TOKEN : null,
    hubspotHostsProxyPort: env.HUBSPOT_HOSTS_PROXY_PORT ? int('HUBSPOT_HOSTS_PROXY_PORT', 0, 0, 65535) : null,
    hubspotHostsTlsPort: env.HUBSPOT_HOSTS_TLS_PORT ? int('HUBSPOT_HOSTS_TLS_PORT', 0, 0, 65535) : null,
  };
  // Each listener on HOST needs a port of its own (0, any free port, never collides).
  const ports: [string, number | null][] = [
    ['PORT', port],
    ['HUBSPOT_HOSTS_PROXY_PORT', config.hubspotHostsProxyPort],
    ['HUBSPOT_HOSTS_TLS_PORT', config.hubspotHostsTlsPort],
  ];
  ports.forEach(([name, value], i) => {
    const earlier = ports.slice(0, i).find(([, other]) => value !== null && value !== 0 && other === value);
    if (earlier) problems.push(`${name} must differ from ${earlier[0]}`);
  });
  if (problems.length > 0) throw new ConfigError(problems);
  return config;
}

/** `kid1:base64secret,kid2:base64secret` — the first one signs, every one verifies (rotation). */
function parseSigningKeys(raw: string | undefined, problems: string[]): SigningKey[] | null {
  if (raw === undefined || raw === '') return null;
  const keys: SigningKey[] = [];
  for (const part of raw.split(',')) {
    const [kid, b64] = part.split(':');
    if (!kid || !b64 || !/^[A-Za-z0-9_-]{1,16}$/.test(kid)) {
      problems.push(
        'TOKEN_SIGNING_KEYS must look like kid:base64secret[,kid:base64secret] (kid: 1-16 of A-Z a-z 0-9 _ -)',
      );
      return null;
    }
    const secret = Buffer.from(b64, 'base64');
    if (secret.length < 32) {
      problems.push(`TOKEN_SIGNING_KEYS key "${kid}" must be at least 32 bytes once base64-decoded`);
      return null;
    }
    if (keys.some((k) => k.kid === kid)) {
      problems.push(`TOKEN_SIGNING_KEYS has key id "${kid}" twice`);
      return null;
    }
    keys.push({ kid, secret });
  }
  return keys;
}

/** TRUST_PROXY: `true`/`false`, a hop count, or a comma-separated list of IPs and CIDR ranges. */
function parseTrustProxy(raw: string | undefined, problems: string[]): TrustProxy {
  const value = raw?.trim() ?? '';
  if (value === '' || value === 'false' || value === '0') return false;
  if (value === 'true') return true;
  if (/^\d+$/.test(value)) {
    const hops = Number(value);
    if (hops >= 1 && hops <= 100) return hops;
  }
  const entries = value.split(',').map((e) => e.trim());
  const valid = (entry: string) => {
    const [address, bits, extra] = entry.split('/');
    const family = isIP(address ?? '');
    if (family === 0 || extra !== undefined) return false;
    return bits === undefined || (/^\d+$/.test(bits) && Number(bits) <= (family === 4 ? 32 : 128));
  };
  if (entries.length > 0 && entries.every(valid)) return entries;
  problems.push(
    `TRUST_PROXY must be true, false, a hop count from 1 to 100, or a comma-separated list of IP addresses and CIDR ranges (got "${raw}")`,
  );
  return false;
}

/** JSON overriding some of the defaults, e.g. {"professional":{"calculatedProperties":50}}. */
function parseTierLimits(raw: string | undefined, problems: string[]): Record<Tier, TierLimits> {
  const limits = structuredClone(DEFAULT_TIER_LIMITS);
  if (raw === undefined || raw === '') return limits;
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    problems.push('TIER_LIMITS must be JSON such as {"professional":{"calculatedProperties":50}}');
    return limits;
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    problems.push('TIER_LIMITS must be a JSON object keyed by tier');
    return limits;
  }
  for (const [tier, values] of Object.entries(parsed as Record<string, unknown>)) {
    if (!(TIERS as readonly string[]).includes(tier) || typeof values !== 'object' || values === null) {
      problems.push(`TIER_LIMITS: unknown tier "${tier}" (tiers: ${TIERS.join(', ')})`);
      continue;
    }
    for (const [key, n] of Object.entries(values as Record<string, unknown>)) {
      if (!(key in limits[tier as Tier]) || typeof n !== 'number' || !Number.isInteger(n) || n < 0) {
        problems.push(`TIER_LIMITS.${tier}.${key} must be a known limit with a non-negative integer`);
        continue;
      }
      limits[tier as Tier][key as keyof TierLimits] = n;
    }
  }
  return limits;
}

export const APP_CONFIG = Symbol('APP_CONFIG');

function isRedisUrl(raw: string): boolean {
  try {
    const url = new URL(raw);
    return (url.protocol === 'redis:' || url.protocol === 'rediss:') && url.hostname !== '';
  } catch {
    return false;
  }
}
