import { ConfigError, loadConfig } from '../../src/platform/config/config';
import { DEFAULT_TIER_LIMITS } from '../../src/platform/tiers';

describe('loadConfig', () => {
  it('has the documented defaults in demo mode', () => {
    const c = loadConfig({});
    expect(c).toMatchObject({
      host: '127.0.0.1',
      port: 3000,
      dataDir: './data',
      seed: 'demo',
      adminApiKey: null,
      eventStoreConnectionString: null,
      logLevel: 'info',
    });
    expect(c.publicUrl).toBe('http://127.0.0.1:3000');
    expect(c.tierLimits).toEqual(DEFAULT_TIER_LIMITS);
  });

  it('reads ACCESS_TOKEN_TTL_SECONDS (1 s to a day, default 1800)', () => {
    expect(loadConfig({}).accessTokenTtlSeconds).toBe(1800);
    expect(loadConfig({ ACCESS_TOKEN_TTL_SECONDS: '30' }).accessTokenTtlSeconds).toBe(30);
    for (const bad of ['0', '86401', '1.5', '-3', 'soon']) {
      expect(() => loadConfig({ ACCESS_TOKEN_TTL_SECONDS: bad })).toThrow(
        /ACCESS_TOKEN_TTL_SECONDS must be an integer from 1 to 86400/,
      );
    }
  });

  it('reads the byte bounds of the caches and the CRM body limit (issue 14)', () => {
    expect(loadConfig({})).toMatchObject({
      crmBodyLimitBytes: 256 * 1024,
      eventCache: {
        streamCacheBytes: 8 * 1024 * 1024,
        liveTailBytes: 4 * 1024 * 1024,
        snapshotBytes: 32 * 1024 * 1024,
      },
    });
    expect(
      loadConfig({
        STREAM_CACHE_MAX_BYTES: '0',
        LIVE_TAIL_MAX_BYTES: '1048576',
        SNAPSHOT_CACHE_MAX_BYTES: '2048',
        CRM_BODY_LIMIT_BYTES: '65536',
      }),
    ).toMatchObject({
      crmBodyLimitBytes: 65536,
      eventCache: { streamCacheBytes: 0, liveTailBytes: 1048576, snapshotBytes: 2048 },
    });
    expect(() => loadConfig({ STREAM_CACHE_MAX_BYTES: 'lots' })).toThrow(/STREAM_CACHE_MAX_BYTES must be an integer/);
    expect(() => loadConfig({ CRM_BODY_LIMIT_BYTES: '10' })).toThrow(/CRM_BODY_LIMIT_BYTES must be an integer/);
  });

  it('reads REQUEST_TIMEOUT_MS and MAX_CONNECTIONS (issue 26, item 2)', () => {
    expect(loadConfig({})).toMatchObject({ requestTimeoutMs: 30_000, maxConnections: 1000 });
    expect(loadConfig({ REQUEST_TIMEOUT_MS: '500', MAX_CONNECTIONS: '8' })).toMatchObject({
      requestTimeoutMs: 500,
      maxConnections: 8,
    });
    expect(() => loadConfig({ REQUEST_TIMEOUT_MS: '0' })).toThrow(/REQUEST_TIMEOUT_MS must be an integer/);
    expect(() => loadConfig({ MAX_CONNECTIONS: '0' })).toThrow(/MAX_CONNECTIONS must be an integer/);
  });

  it('reads WEBHOOK_THREAD_NICE: the delivery thread below the event loop by default, 0 to 19 (issue 42)', () => {
    expect(loadConfig({}).webhooks.threadNice).toBe(10);
    expect(loadConfig({ WEBHOOK_THREAD_NICE: '0' }).webhooks.threadNice).toBe(0);
    expect(loadConfig({ WEBHOOK_THREAD_NICE: '19' }).webhooks.threadNice).toBe(19);
    for (const bad of ['20', '-1', 'low', '2.5'])
      expect(() => loadConfig({ WEBHOOK_THREAD_NICE: bad })).toThrow(/WEBHOOK_THREAD_NICE must be an integer/);
  });

  it('reads KEEP_ALIVE_TIMEOUT_MS and MAX_CONNECTIONS_PER_ADDRESS: a few seconds, a quarter of the cap (issue 41, item 5)', () => {
    expect(loadConfig({})).toMatchObject({ keepAliveTimeoutMs: 5000, maxConnectionsPerAddress: 250 });
    expect(loadConfig({ MAX_CONNECTIONS: '8' }).maxConnectionsPerAddress).toBe(2);
    expect(loadConfig({ MAX_CONNECTIONS: '3' }).maxConnectionsPerAddress).toBe(1);
    // Behind a trusted proxy every client arrives from the proxy's address: the whole cap.
    expect(loadConfig({ MAX_CONNECTIONS: '8', TRUST_PROXY: '1' }).maxConnectionsPerAddress).toBe(8);
    expect(loadConfig({ MAX_CONNECTIONS_PER_ADDRESS: '30', KEEP_ALIVE_TIMEOUT_MS: '2000' })).toMatchObject({
      maxConnectionsPerAddress: 30,
      keepAliveTimeoutMs: 2000,
    });
    expect(() => loadConfig({ MAX_CONNECTIONS_PER_ADDRESS: '0' })).toThrow(
      /MAX_CONNECTIONS_PER_ADDRESS must be an integer/,
    );
    expect(() => loadConfig({ KEEP_ALIVE_TIMEOUT_MS: '10' })).toThrow(/KEEP_ALIVE_TIMEOUT_MS must be an integer/);
  });

  it('reads COUNTER_STORE_URL: unset keeps the counters in memory; only a redis:// or rediss:// URL (issue 25, item 5)', () => {
    expect(loadConfig({}).counterStoreUrl).toBeNull();
    expect(loadConfig({ COUNTER_STORE_URL: 'redis://127.0.0.1:6380' }).counterStoreUrl).toBe('redis://127.0.0.1:6380');
    expect(loadConfig({ COUNTER_STORE_URL: 'rediss://:pw@cache.internal:6380/2' }).counterStoreUrl).toBe(
      'rediss://:pw@cache.internal:6380/2',
    );
    for (const bad of ['127.0.0.1:6379', 'http://127.0.0.1:6379', 'redis://', 'redis:///0', 'not a url\u0000']) {
      expect(() => loadConfig({ COUNTER_STORE_URL: bad })).toThrow(
        /COUNTER_STORE_URL must be a redis:\/\/ or rediss:\/\/ URL/,
      );
    }
  });

  it('requires ADMIN_API_KEY outside the demo', () => {
    expect(() => loadConfig({ SEED: 'none' })).toThrow(/ADMIN_API_KEY is required/);
    expect(loadConfig({ SEED: 'none', ADMIN_API_KEY: 'x'.repeat(16) }).adminApiKey).toBe('x'.repeat(16));
  });

  it('lists every bad value with a clear message', () => {
    try {
      loadConfig({
        PORT: 'eighty',
        SEED: 'maybe',
        LOG_LEVEL: 'loud',
        EVENTSTORE_CONNECTION_STRING: 'http://x',
        TOKEN_SIGNING_KEYS: 'k1:c2hvcnQ=',
      });
      throw new Error('should have thrown');
    } catch (e) {
      expect(e).toBeInstanceOf(ConfigError);
      const problems = (e as ConfigError).problems.join('\n');
      expect(problems).toMatch(/PORT must be an integer/);
      expect(problems).toMatch(/SEED must be one of demo, none/);
      expect(problems).toMatch(/LOG_LEVEL must be one of/);
      expect(problems).toMatch(/EVENTSTORE_CONNECTION_STRING must start with esdb:\/\//);
      expect(problems).toMatch(/at least 32 bytes/);
    }
  });

  it('parses rotating signing keys, first one signs', () => {
    const a = Buffer.alloc(32, 1).toString('base64');
    const b = Buffer.alloc(32, 2).toString('base64');
    const c = loadConfig({ TOKEN_SIGNING_KEYS: `new:${a},old:${b}` });
    expect(c.signingKeys!.map((k) => k.kid)).toEqual(['new', 'old']);
    expect(() => loadConfig({ TOKEN_SIGNING_KEYS: `x:${a},x:${b}` })).toThrow(/twice/);
  });

  it('overrides tier limits from JSON and refuses unknown keys', () => {
    const c = loadConfig({ TIER_LIMITS: '{"professional":{"calculatedProperties":5}}' });
    expect(c.tierLimits.professional.calculatedProperties).toBe(5);
    expect(c.tierLimits.enterprise).toEqual(DEFAULT_TIER_LIMITS.enterprise);
    expect(
      loadConfig({ TIER_LIMITS: '{"starter":{"associationLabels":10}}' }).tierLimits.starter.associationLabels,
    ).toBe(10);
    expect(() => loadConfig({ TIER_LIMITS: '{"gold":{}}' })).toThrow(/unknown tier "gold"/);
    expect(() => loadConfig({ TIER_LIMITS: '{"free":{"calculatedProperties":-1}}' })).toThrow(/non-negative integer/);
    expect(() => loadConfig({ TIER_LIMITS: 'nope' })).toThrow(/must be JSON/);
  });
});

describe('loadConfig with EventStoreDB', () => {
  it('requires shared signing keys and session secret, so every instance accepts every token', () => {
    expect(() => loadConfig({ EVENTSTORE_CONNECTION_STRING: 'esdb://127.0.0.1:2113?tls=false' })).toThrow(
      /TOKEN_SIGNING_KEYS is required[\s\S]*SESSION_SECRET is required/,
    );
    const c = loadConfig({
      EVENTSTORE_CONNECTION_STRING: 'esdb://127.0.0.1:2113?tls=false',
      TOKEN_SIGNING_KEYS: `k1:${Buffer.alloc(32, 7).toString('base64')}`,
      SESSION_SECRET: 's'.repeat(32),
    });
    expect(c.eventStoreConnectionString).toBe('esdb://127.0.0.1:2113?tls=false');
  });
});

describe('loadConfig TRUST_PROXY', () => {
  it("takes Fastify's forms: off by default, true, a hop count, a list of addresses and CIDR ranges", () => {
    expect(loadConfig({}).trustProxy).toBe(false);
    expect(loadConfig({ TRUST_PROXY: 'false' }).trustProxy).toBe(false);
    expect(loadConfig({ TRUST_PROXY: 'true' }).trustProxy).toBe(true);
    expect(loadConfig({ TRUST_PROXY: '2' }).trustProxy).toBe(2);
    expect(loadConfig({ TRUST_PROXY: '10.0.0.0/8, 127.0.0.1,::1' }).trustProxy).toEqual([
      '10.0.0.0/8',
      '127.0.0.1',
      '::1',
    ]);
    for (const bad of ['yes', '10.0.0.0/33', '10.0.0.0/8/1', 'proxy.local', '101', '-1']) {
      expect(() => loadConfig({ TRUST_PROXY: bad })).toThrow(/TRUST_PROXY must be true, false, a hop count/);
    }
  });
});

describe('loadConfig METRICS_TOKEN', () => {
  it('is off by default and at least 16 characters without spaces when set', () => {
    expect(loadConfig({}).metricsToken).toBeNull();
    expect(loadConfig({ METRICS_TOKEN: 'm'.repeat(16) }).metricsToken).toBe('m'.repeat(16));
    for (const bad of ['short', 'with space inside ok?']) {
      expect(() => loadConfig({ METRICS_TOKEN: bad })).toThrow(/METRICS_TOKEN must be at least 16 characters/);
    }
  });
});
