import { connect } from 'node:net';
import { once } from 'node:events';
import { installAndExchange, oauthFixture } from '../support/oauth-fixtures';
import { startTestApp, type TestApp } from '../support/test-app';

/**
 * Issue 26, item 9: real tokens sent in every spelling the review found leaking (dot segments,
 * `;x`, backslashes, `#`/`?` after the token, odd parameter names) never reach the log stream.
 * Requests go over a raw socket to 127.0.0.1, so each target is sent byte for byte.
 */
describe('tokens never logged, however the URL is spelled (issue 26, item 9)', () => {
  let t: TestApp;
  const lines: string[] = [];
  let at: string;
  let rt: string;
  let clientSecret: string;

  beforeAll(async () => {
    t = await startTestApp({
      listen: true,
      env: { LOG_LEVEL: 'debug' },
      logDestination: { write: (line) => void lines.push(line) },
    });
    const f = await oauthFixture(t);
    clientSecret = f.clientSecret;
    const tokens = await installAndExchange(t, f);
    at = tokens.access_token;
    rt = tokens.refresh_token;
  });
  afterAll(() => t.close());

  /** Sends one request line as written; resolves with the status code (0 if the server closed without one). */
  async function raw(method: string, target: string): Promise<number> {
    const socket = connect({ host: '127.0.0.1', port: Number(new URL(t.url).port) });
    await once(socket, 'connect');
    const chunks: Buffer[] = [];
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('error', () => undefined);
    socket.write(`${method} ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 0\r\nConnection: close\r\n\r\n`);
    await once(socket, 'close');
    return Number(/^HTTP\/1\.1 (\d{3})/.exec(Buffer.concat(chunks).toString('latin1'))?.[1] ?? 0);
  }

  it('the log stream holds none of the tokens nor their parts', async () => {
    const targets = [
      `/oauth/v1/./access-tokens/${at}`,
      `/oauth/v1/%2E/access-tokens/${at}`,
      `/oauth/v1/x/../access-tokens/${at}`,
      `/oauth/v1/access-tokens/${at};x`,
      `/oauth/v1/access-tokens;x/${at}`,
      `/oauth\\v1\\access-tokens\\${at}`,
      `/oauth/v1/access-tokens/${at}#frag`,
      `/oauth/v1/access-tokens/${at}?x=1`,
      `/oauth/v1/access-tokens/${at}%23x`,
      `/oauth/v1/access-tokens/${at}%3Fx`,
      `/oauth/v1/refresh-tokens/./${rt}`,
      `/oauth/v1/refresh-tokens/${rt}#x`,
      `/oauth/v1/token?refresh_token%00=${rt}`,
      `/oauth/v1/token?refresh_token[]=${rt}`,
      `/oauth/v1/token?grant_type=refresh_token&client_secret%00=${clientSecret}`,
      `/crm/v3/limits/calculated-properties?bearer=${at}`,
      `/crm/v3/limits/calculated-properties?Authorization=Bearer%20${at}`,
      `/crm/v3/limits/calculated-properties?apikey=${at}`,
      `/crm/v3/limits/calculated-properties?id_token=${at}`,
      `/no/such/route/${at}`,
    ];
    for (const target of targets) {
      const status = await raw(target.includes('/token?') ? 'POST' : 'GET', target);
      expect(status).toBeGreaterThan(0);
      expect(status).toBeLessThan(500);
    }
    const log = lines.join('');
    expect(log).toContain('"msg":"request"'); // the one line per request (was 'incoming request', issue 29)
    expect(log).toContain('[REDACTED]');
    const parts = [at, rt, clientSecret, ...at.split('.').slice(1), rt.slice(4)];
    const leaked = parts.filter((p) => log.includes(p));
    expect(leaked).toEqual([]);
  });
});

/**
 * Issue 41, item 9: the secrets the service was given are redacted by value, whatever carries
 * them: a query name outside the redaction list (`admin_key`, `session`, `sig`), a path segment,
 * a percent-encoded spelling, or a log line's other fields.
 */
describe('secrets the service knows never logged, under any name (issue 41, item 9)', () => {
  const metricsToken = 'metrics-token-only-lower-case-letters';
  const sessionSecret = 'session-secret-of-thirty-two-bytes-or-more';
  let t: TestApp;
  const lines: string[] = [];

  beforeAll(async () => {
    t = await startTestApp({
      listen: true,
      env: { LOG_LEVEL: 'debug', METRICS_TOKEN: metricsToken, SESSION_SECRET: sessionSecret },
      logDestination: { write: (line) => void lines.push(line) },
    });
  });
  afterAll(() => t.close());

  async function raw(target: string): Promise<number> {
    const socket = connect({ host: '127.0.0.1', port: Number(new URL(t.url).port) });
    await once(socket, 'connect');
    const chunks: Buffer[] = [];
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('error', () => undefined);
    socket.write(`GET ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`);
    await once(socket, 'close');
    return Number(/^HTTP\/1\.1 (\d{3})/.exec(Buffer.concat(chunks).toString('latin1'))?.[1] ?? 0);
  }
  const everyCharacterEncoded = (s: string) =>
    [...Buffer.from(s)].map((b) => `%${b.toString(16).padStart(2, '0')}`).join('');

  it('the admin key, the metrics token and the session secret are redacted wherever they appear', async () => {
    const key = t.adminKey;
    const targets = [
      `/admin/v1/accounts?admin_key=${key}`,
      `/admin/v1/accounts?session=${key}`,
      `/admin/v1/accounts?sig=${key}`,
      `/admin/v1/accounts/${key}`,
      `/admin/v1/accounts?x=${everyCharacterEncoded(key)}`,
      `/admin/v1/accounts?x=pre${encodeURIComponent(key).toUpperCase()}post`,
      `/metrics?m=${metricsToken}`,
      `/no/such/route/${sessionSecret}`,
      `/no/such/route?s=${everyCharacterEncoded(sessionSecret)}`,
    ];
    for (const target of targets) {
      const status = await raw(target);
      expect(status).toBeGreaterThan(0);
      expect(status).toBeLessThan(500);
    }
    const log = lines.join('');
    expect(log.match(/"msg":"request"/g)?.length).toBeGreaterThanOrEqual(targets.length);
    expect(log).toContain('[REDACTED]');
    const leaked = [key, metricsToken, sessionSecret].filter(
      (s) => log.includes(s) || log.toLowerCase().includes(everyCharacterEncoded(s)),
    );
    expect(leaked).toEqual([]);
  });
});
