import { execFile, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import { connect as netConnect, createServer as createNetServer, type Server as NetServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect as tlsConnect } from 'node:tls';
import { promisify } from 'node:util';
import { HubSpotHostsFront } from '../../src/test-controls/hosts-front/hubspot-hosts-front';
import { childEnv } from '../support/child-env';
import {
  HAVE_CURL,
  HAVE_PYTHON_REQUESTS,
  HAVE_PYTHON_SDK,
  PYTHON_CLIENTS,
  reportMissing,
} from '../support/client-tools';
import { installCode, oauthFixture, type OAuthFixture } from '../support/oauth-fixtures';
import { startTestApp, type TestApp } from '../support/test-app';

const run = promisify(execFile);

/** An environment with no proxy variable: the clients here must reach the front without one. */
function noProxyEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env = childEnv(extra);
  for (const name of ['HTTPS_PROXY', 'https_proxy', 'HTTP_PROXY', 'http_proxy', 'ALL_PROXY', 'all_proxy'])
    delete env[name];
  delete env.NODE_USE_ENV_PROXY;
  return env;
}

// The clients are tested where they are installed; otherwise skipped, saying so.
// A network namespace of the client's own, with its own /etc/hosts: never the machine's resolver.
const UNSHARE = ['-rn', '--mount'];
const HAVE_NETNS =
  spawnSync('unshare', [...UNSHARE, 'sh', '-c', 'ip link set lo up && mount --bind /dev/null /etc/hosts'], {
    env: childEnv(),
  }).status === 0;
reportMissing('transparent-front', [
  [HAVE_CURL, 'curl'],
  [HAVE_NETNS, 'a network namespace of its own (`unshare -rn --mount` and `ip`), for the hosts-file clients'],
  ...PYTHON_CLIENTS,
]);
const curl = HAVE_CURL ? it : it.skip;
const netns = HAVE_NETNS ? it : it.skip;
const pythonInNetns = HAVE_NETNS && HAVE_PYTHON_REQUESTS ? it : it.skip;
const sdkInNetns = HAVE_NETNS && HAVE_PYTHON_SDK ? it : it.skip;

// Each client is a child process; on a busy shared machine a Python start alone can take seconds.
jest.setTimeout(90_000);

/**
 * The transparent mode of the HubSpot hosts front (issue 39, item 5): with HUBSPOT_HOSTS_TLS_PORT the
 * service listens with TLS for HubSpot's host names, the certificate picked by SNI, for clients that
 * ignore proxy settings and reach it through a hosts-file mapping. Over loopback only: clients name
 * the host by SNI (Node's `servername`, curl's `--resolve`) or run in a network namespace of their
 * own whose /etc/hosts maps the host, with port 443 there carried to the front.
 */
describe('HubSpot hosts front, transparent mode (HUBSPOT_HOSTS_TLS_PORT)', () => {
  let t: TestApp;
  let f: OAuthFixture;
  let port: number;
  let caFile: string;
  let ca: string;
  const log: string[] = [];
  const logWaiters = new Set<() => void>();

  beforeAll(async () => {
    t = await startTestApp({
      listen: true,
      env: { HUBSPOT_HOSTS_TLS_PORT: '0', LOG_LEVEL: 'info' },
      logDestination: {
        write: (line) => {
          log.push(line);
          for (const waiter of logWaiters) waiter();
        },
      },
    });
    f = await oauthFixture(t, { requiredScopes: ['oauth', 'crm.objects.contacts.read', 'crm.schemas.contacts.read'] });
    port = t.app.get(HubSpotHostsFront).tlsPort!;
    caFile = join(t.dataDir, 'hubspot-hosts-ca.pem');
    ca = readFileSync(caFile, 'utf8');
  });
  afterAll(() => t.close());

  const messages = () => log.map((line) => (JSON.parse(line) as { msg: string }).msg);
  /** Resolves once a log line matches (the server logs a failed handshake after the client has seen it). */
  const logged = (pattern: RegExp) =>
    new Promise<string>((resolve) => {
      const check = () => {
        const line = messages().find((m) => pattern.test(m));
        if (line === undefined) return;
        logWaiters.delete(check);
        resolve(line);
      };
      logWaiters.add(check);
      check();
    });

  /** An HTTPS request to the front as `host`, by SNI and Host header, trusting only the CA. */
  const viaFront = (host: string, method: string, path: string, headers: Record<string, string> = {}, body?: string) =>
    new Promise<{ status: number; json: Record<string, unknown> }>((resolve, reject) => {
      const req = httpsRequest(
        { host: '127.0.0.1', port, servername: host, ca, method, path, headers: { host, ...headers }, agent: false },
        (res) => {
          let text = '';
          res.on('data', (d: Buffer) => (text += d.toString('utf8')));
          res.on('end', () => resolve({ status: res.statusCode!, json: JSON.parse(text) as Record<string, unknown> }));
        },
      );
      req.on('error', reject);
      req.end(body);
    });

  it('listens on its own port, and the start log gives the lines to copy', () => {
    expect(port).toEqual(expect.any(Number));
    expect(t.app.get(HubSpotHostsFront).port).toBeNull(); // the CONNECT proxy stays off unless set
    const lines = messages();
    expect(lines).toContainEqual(expect.stringContaining(`HubSpot hosts front, transparent mode on 127.0.0.1:${port}`));
    expect(lines).toContainEqual(expect.stringMatching(new RegExp(`NODE_EXTRA_CA_CERTS=\\S*${caFile}$`)));
    expect(lines).toContainEqual(expect.stringMatching(new RegExp(`REQUESTS_CA_BUNDLE=\\S*${caFile}$`)));
    expect(lines).toContainEqual(expect.stringContaining(`--resolve api.hubapi.com:${port}:127.0.0.1 --cacert`));
  });

  it('Node tls with servername api.hubapi.com: the OAuth code exchange, token metadata and a properties call', async () => {
    const { code } = await installCode(t, f);
    const form = new URLSearchParams({
      grant_type: 'authorization_code',
      code,
      redirect_uri: f.redirectUri,
      client_id: f.clientId,
      client_secret: f.clientSecret,
    }).toString();
    const token = await viaFront(
      'api.hubapi.com',
      'POST',
      '/oauth/v1/token',
      { 'content-type': 'application/x-www-form-urlencoded' },
      form,
    );
    expect(token).toMatchObject({ status: 200, json: { token_type: 'bearer', expires_in: 1800 } });
    const accessToken = token.json.access_token as string;
    const info = await viaFront('api.hubapi.com', 'GET', `/oauth/v1/access-tokens/${accessToken}`);
    expect(info.json).toMatchObject({ hub_id: f.hubId, app_id: f.appId });
    const properties = await viaFront('api.hubapi.com', 'GET', '/crm/v3/properties/contacts', {
      authorization: `Bearer ${accessToken}`,
    });
    expect(properties.status).toBe(200);
    expect(properties.json.results).toContainEqual(expect.objectContaining({ name: 'email' }));
  });

  it("serves each HubSpot host its own certificate (EU and app hosts too; SNI's case ignored)", async () => {
    for (const host of ['app.hubspot.com', 'api-eu1.hubapi.com', 'API.HubAPI.com']) {
      const r = await viaFront(host, 'GET', '/oauth/v1/access-tokens/not-a-token');
      expect([host, r.json.status]).toEqual([host, 'BAD_ACCESS_TOKEN']); // the service's own answer
    }
  });

  /** A TLS handshake with `servername` (none when null): the certificate's name, or the error. */
  const handshake = (servername: string | null) =>
    new Promise<string>((resolve) => {
      const socket = tlsConnect({
        host: '127.0.0.1',
        port,
        ...(servername === null ? {} : { servername }),
        ca,
        rejectUnauthorized: false,
      });
      socket.once('secureConnect', () => {
        resolve(`certificate ${socket.getPeerCertificate().subject.CN}`);
        socket.destroy();
      });
      socket.once('error', (e: Error & { code?: string }) => resolve(`${e.code}`));
      socket.setTimeout(10_000, () => resolve('no answer'));
    });

  it('refuses any other name, and no name, with a TLS alert: nothing is answered', async () => {
    expect(await handshake('api.hubapi.com')).toBe('certificate api.hubapi.com'); // the set-up works
    for (const name of ['example.com', 'www.hubspot.com', 'api.hubapi.com.evil.test', 'localhost', null]) {
      expect([name, await handshake(name)]).toEqual([name, 'ERR_SSL_SSL/TLS_ALERT_HANDSHAKE_FAILURE']);
    }
    // Plain HTTP to the TLS port is no request either.
    await expect(fetch(`http://127.0.0.1:${port}/crm/v3/properties/contacts`)).rejects.toThrow();
    const lines = messages();
    expect(lines).toContainEqual(
      expect.stringMatching(/^refused TLS for "example\.com": this port answers only as HubSpot's hosts/),
    );
    expect(lines).toContainEqual(expect.stringMatching(/^refused a TLS connection that named no host \(no SNI; /));
  });

  it('a client that does not trust the CA fails the handshake, and the log says why it may have', async () => {
    const outcome = await new Promise<string>((resolve) => {
      const socket = tlsConnect({ host: '127.0.0.1', port, servername: 'api.hubapi.com' }); // the public roots only
      socket.once('secureConnect', () => resolve('connected'));
      socket.once('error', (e: Error & { code?: string }) => resolve(`${e.code}`));
    });
    expect(outcome).toMatch(/CERT|ISSUER|SELF_SIGNED/);
    await expect(logged(/^TLS handshake for api\.hubapi\.com failed .*trust the CA/)).resolves.toBeDefined();
  });

  curl('curl --resolve api.hubapi.com:<port>:127.0.0.1 --cacert: the code exchange and a properties call', async () => {
    const { code } = await installCode(t, f);
    const base = ['-sS', '--resolve', `api.hubapi.com:${port}:127.0.0.1`, '--cacert', caFile];
    const { stdout: tokenText } = await run(
      'curl',
      [
        ...base,
        `https://api.hubapi.com:${port}/oauth/v1/token`,
        '--data-urlencode',
        'grant_type=authorization_code',
        '--data-urlencode',
        `code=${code}`,
        '--data-urlencode',
        `redirect_uri=${f.redirectUri}`,
        '--data-urlencode',
        `client_id=${f.clientId}`,
        '--data-urlencode',
        `client_secret=${f.clientSecret}`,
      ],
      { env: noProxyEnv(), timeout: 30_000 },
    );
    const token = JSON.parse(tokenText) as { access_token: string; expires_in: number };
    expect(token.expires_in).toBe(1800);
    const { stdout } = await run(
      'curl',
      [
        ...base,
        `https://api.hubapi.com:${port}/crm/v3/properties/contacts`,
        '-H',
        `Authorization: Bearer ${token.access_token}`,
      ],
      { env: noProxyEnv(), timeout: 30_000 },
    );
    expect((JSON.parse(stdout) as { results: { name: string }[] }).results).toContainEqual(
      expect.objectContaining({ name: 'email' }),
    );
    // Without the CA, curl refuses the certificate: it is not a public one.
    await expect(
      run('curl', [...base.slice(0, 3), `https://api.hubapi.com:${port}/`], {
        env: noProxyEnv({ CURL_CA_BUNDLE: '/nonexistent' }),
        timeout: 30_000,
      }),
    ).rejects.toThrow();
  });

  describe('clients in a network namespace of their own, whose /etc/hosts maps HubSpot’s hosts', () => {
    let dir: string;
    let bridge: NetServer;
    let hostsFile: string;
    let socketPath: string;

    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), 'hs-netns-'));
      hostsFile = join(dir, 'hosts');
      writeFileSync(hostsFile, '127.0.0.1 localhost\n127.0.0.1 api.hubapi.com app.hubspot.com\n');
      socketPath = join(dir, 'front.sock');
      // The namespace's port 443 arrives here (netns-relay.mjs) and goes on to the front's TCP port.
      bridge = createNetServer((inside) => {
        const front = netConnect(port, '127.0.0.1');
        inside.pipe(front).pipe(inside);
        inside.on('error', () => front.destroy());
        front.on('error', () => inside.destroy());
      });
      await new Promise<void>((resolve) => bridge.listen(socketPath, resolve));
    });
    afterAll(async () => {
      await new Promise((resolve) => bridge?.close(resolve));
      rmSync(dir, { recursive: true, force: true });
    });

    /** Runs `command` in its own network and mount namespace: loopback up, the hosts file above, 443 relayed. */
    const inNamespace = async (command: string[], env: Record<string, string>) => {
      const script = 'ip link set lo up && mount --bind "$HOSTS_FILE" /etc/hosts && exec "$@"';
      const { stdout } = await run(
        'unshare',
        [
          ...UNSHARE,
          'sh',
          '-ec',
          script,
          'sh',
          process.execPath,
          join(__dirname, '../support/netns-relay.mjs'),
          socketPath,
          '--',
          ...command,
        ],
        { env: noProxyEnv({ ...env, HOSTS_FILE: hostsFile }), timeout: 80_000 },
      );
      return JSON.parse(stdout.trim().split('\n').pop()!) as Record<string, unknown>;
    };

    const oauthEnv = async () => {
      const { code } = await installCode(t, f);
      return { CODE: code, CLIENT_ID: f.clientId, CLIENT_SECRET: f.clientSecret, REDIRECT_URI: f.redirectUri };
    };

    netns(
      '@hubspot/api-client with no basePath and no proxy variable, only NODE_EXTRA_CA_CERTS: exchange, properties, contacts, refresh',
      async () => {
        const result = await inNamespace([process.execPath, join(__dirname, '../support/hosts-front-client.mjs')], {
          ...(await oauthEnv()),
          NODE_EXTRA_CA_CERTS: caFile,
        });
        expect(result).toEqual({
          hubId: f.hubId,
          expiresIn: 1800,
          properties: expect.any(Number),
          contacts: 0,
          refreshedExpiresIn: 1800,
          propertiesAfterRefresh: expect.any(Number),
        });
      },
    );

    pythonInNetns(
      "Python requests (what HubSpot's Python SDK is built on) with REQUESTS_CA_BUNDLE: the code exchange and a properties call",
      async () => {
        const result = await inNamespace(['python3', join(__dirname, '../support/transparent-requests-client.py')], {
          ...(await oauthEnv()),
          REQUESTS_CA_BUNDLE: caFile,
        });
        expect(result).toEqual({ hubId: f.hubId, expiresIn: 1800, properties: expect.any(Number), email: true });
      },
    );

    sdkInNetns(
      "HubSpot's Python SDK (hubspot-api-client) with ssl_ca_cert=: the code exchange and a properties call",
      async () => {
        const result = await inNamespace(['python3', join(__dirname, '../support/python-sdk-client.py')], {
          ...(await oauthEnv()),
          CA: caFile,
        });
        expect(result).toEqual({
          sdk: expect.any(String),
          hubId: f.hubId,
          expiresIn: 1800,
          properties: expect.any(Number),
          email: true,
        });
        process.stderr.write(`[transparent-front] ran HubSpot's Python SDK ${String(result.sdk)}\n`);
      },
    );
  });
});

describe('HubSpot hosts front, both modes at once', () => {
  it('share one CA; each port answers in its own mode', async () => {
    const log: string[] = [];
    const t = await startTestApp({
      listen: true,
      env: { HUBSPOT_HOSTS_TLS_PORT: '0', HUBSPOT_HOSTS_PROXY_PORT: '0', LOG_LEVEL: 'info' },
      logDestination: { write: (line) => void log.push(line) },
    });
    try {
      const front = t.app.get(HubSpotHostsFront);
      expect(front.port).not.toBeNull();
      expect(front.tlsPort).not.toBeNull();
      expect(front.port).not.toBe(front.tlsPort);
      const pem = (await t.admin('GET', '/admin/v1/hubspot-hosts-ca.pem')).body;
      expect(pem).toBe(readFileSync(join(t.dataDir, 'hubspot-hosts-ca.pem'), 'utf8'));
      const subject = await new Promise<string>((resolve, reject) => {
        const socket = tlsConnect({ host: '127.0.0.1', port: front.tlsPort!, servername: 'app.hubspot.com', ca: pem });
        socket.once('secureConnect', () => {
          resolve(socket.getPeerCertificate().subject.CN as string);
          socket.destroy();
        });
        socket.once('error', reject);
      });
      expect(subject).toBe('app.hubspot.com');
      // The start log: both modes' lines to copy, and the warning about Node below 24 (level 40: warn).
      const entries = log.map((line) => JSON.parse(line) as { level: number; msg: string });
      const said = entries.map((e) => e.msg);
      expect(said).toContainEqual(expect.stringContaining(`proxy mode on http://127.0.0.1:${front.port}`));
      expect(said).toContainEqual(
        expect.stringMatching(
          new RegExp(`NODE_USE_ENV_PROXY=1 HTTPS_PROXY=http://127\\.0\\.0\\.1:${front.port} NODE_EXTRA_CA_CERTS=`),
        ),
      );
      expect(said).toContainEqual(expect.stringContaining(`transparent mode on 127.0.0.1:${front.tlsPort}`));
      expect(entries).toContainEqual(
        expect.objectContaining({
          level: 40,
          msg: expect.stringMatching(/^Node\.js below 24 ignores HTTPS_PROXY and NODE_USE_ENV_PROXY/),
        }),
      );
    } finally {
      await t.close();
    }
  });
});
