import 'reflect-metadata'; // @peculiar/x509 needs it loaded first
import * as x509 from '@peculiar/x509';
import { execFile, spawnSync } from 'node:child_process';
import { webcrypto } from 'node:crypto';
import { existsSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import { connect } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { chromium } from 'playwright-core';
import { leafSubject } from '../../src/test-controls/hosts-front/hubspot-hosts-ca';
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

// The recipes are tested where their tool is installed; otherwise skipped, saying so.
const CHROMIUM = '/usr/bin/chromium';
const HAVE_CHROMIUM = existsSync(CHROMIUM);
const HAVE_CERTUTIL = spawnSync('sh', ['-c', 'command -v certutil'], { env: childEnv() }).status === 0; // libnss3-tools
reportMissing('hosts-front', [
  [HAVE_CURL, 'curl'],
  ...PYTHON_CLIENTS,
  [HAVE_CHROMIUM, CHROMIUM],
  [HAVE_CERTUTIL, "certutil (Debian's libnss3-tools, the Chromium recipe's NSS database)"],
]);
const curl = HAVE_CURL ? it : it.skip;
const pythonTest = HAVE_PYTHON_REQUESTS ? it : it.skip;
const pythonSdkTest = HAVE_PYTHON_SDK ? it : it.skip;
const browserTest = HAVE_CHROMIUM && HAVE_CERTUTIL ? it : it.skip;

// Each test starts or restarts a whole service; on a busy shared machine that can pass 5 s.
jest.setTimeout(60_000);

/**
 * Unmodified apps through the HTTPS front for HubSpot's hosts (issue 30, item 3): with
 * HUBSPOT_HOSTS_PROXY_PORT the service is also a CONNECT proxy for HubSpot's hosts only, with its
 * own CA made once into DATA_DIR. Real clients in child processes, over loopback.
 */
describe('HubSpot hosts front (HUBSPOT_HOSTS_PROXY_PORT)', () => {
  let t: TestApp;
  let f: OAuthFixture;
  let proxy: string;
  let caFile: string;

  beforeAll(async () => {
    t = await startTestApp({ listen: true, env: { HUBSPOT_HOSTS_PROXY_PORT: '0' } });
    f = await oauthFixture(t, { requiredScopes: ['oauth', 'crm.objects.contacts.read', 'crm.schemas.contacts.read'] });
    proxy = `http://127.0.0.1:${t.app.get(HubSpotHostsFront).port}`;
    caFile = join(t.dataDir, 'hubspot-hosts-ca.pem');
  });
  afterAll(async () => {
    await t.close();
    rmSync(t.dataDir, { recursive: true, force: true }); // the restarted service was handed the folder
  });

  it('makes its CA once into DATA_DIR (key 0600) and serves it at GET /admin/v1/hubspot-hosts-ca.pem', async () => {
    const pem = readFileSync(caFile, 'utf8');
    expect(pem).toMatch(/^-----BEGIN CERTIFICATE-----/);
    expect(statSync(join(t.dataDir, 'hubspot-hosts-ca-key.pem')).mode & 0o777).toBe(0o600);
    const r = await t.admin('GET', '/admin/v1/hubspot-hosts-ca.pem');
    expect(r.statusCode).toBe(200);
    expect(r.headers['content-type']).toMatch(/^application\/x-pem-file/);
    expect(r.body).toBe(pem);
    expect((await t.inject({ method: 'GET', url: '/admin/v1/hubspot-hosts-ca.pem' })).statusCode).toBe(401);
  });

  it('@hubspot/api-client 14 with no basePath, only NODE_USE_ENV_PROXY, HTTPS_PROXY and NODE_EXTRA_CA_CERTS: token exchange, metadata, properties, the quickstart’s contacts page, refresh', async () => {
    const { code } = await installCode(t, f);
    const { stdout } = await run(process.execPath, [join(__dirname, '../support/hosts-front-client.mjs')], {
      env: childEnv({
        NODE_USE_ENV_PROXY: '1',
        HTTPS_PROXY: proxy,
        NO_PROXY: '',
        NODE_EXTRA_CA_CERTS: caFile,
        CODE: code,
        CLIENT_ID: f.clientId,
        CLIENT_SECRET: f.clientSecret,
        REDIRECT_URI: f.redirectUri,
      }),
      timeout: 60_000,
    });
    const result = JSON.parse(stdout.trim()) as Record<string, number>;
    expect(result).toEqual({
      hubId: f.hubId,
      expiresIn: 1800,
      properties: expect.any(Number),
      contacts: 0,
      refreshedExpiresIn: 1800,
      propertiesAfterRefresh: expect.any(Number),
    });
    expect(result.properties).toBeGreaterThan(0);
  }, 90_000);

  curl(
    'curl --proxy --cacert reaches https://api.hubapi.com and https://app-eu1.hubspot.com as the service',
    async () => {
      const { stdout } = await run(
        'curl',
        ['-sS', '--proxy', proxy, '--cacert', caFile, 'https://api.hubapi.com/oauth/v1/access-tokens/not-a-token'],
        { env: childEnv({ NO_PROXY: '', no_proxy: '' }), timeout: 30_000 },
      );
      expect(JSON.parse(stdout)).toMatchObject({ status: 'BAD_ACCESS_TOKEN', correlationId: expect.any(String) }); // the service's own answer
      const page = await run(
        'curl',
        [
          '-sS',
          '-o',
          '/dev/null',
          '-w',
          '%{http_code}',
          '--proxy',
          proxy,
          '--cacert',
          caFile,
          'https://app-eu1.hubspot.com/oauth/authorize',
        ],
        { env: childEnv(), timeout: 30_000 },
      );
      expect(page.stdout).toMatch(/^[1-5]\d\d$/);
      // Without trusting the CA, TLS fails: the certificate is not a public one.
      await expect(
        run('curl', ['-sS', '--proxy', proxy, 'https://api.hubapi.com/'], {
          env: childEnv({ CURL_CA_BUNDLE: '/nonexistent' }),
          timeout: 30_000,
        }),
      ).rejects.toThrow();
    },
  );

  pythonTest('Python requests with HTTPS_PROXY and REQUESTS_CA_BUNDLE', async () => {
    const script =
      'import requests, json; r = requests.get("https://api.hubapi.com/oauth/v1/access-tokens/not-a-token"); ' +
      'print(json.dumps({"status": r.status_code, "body": r.json()}))';
    const { stdout } = await run('python3', ['-c', script], {
      env: childEnv({ HTTPS_PROXY: proxy, NO_PROXY: '', no_proxy: '', REQUESTS_CA_BUNDLE: caFile }),
      timeout: 30_000,
    });
    expect(JSON.parse(stdout)).toMatchObject({ status: expect.any(Number), body: { status: 'BAD_ACCESS_TOKEN' } });
  });

  pythonSdkTest(
    "HubSpot's Python SDK with Configuration proxy= and ssl_ca_cert= (it ignores HTTPS_PROXY): the code exchange and a properties call",
    async () => {
      const { code } = await installCode(t, f);
      const { stdout } = await run('python3', [join(__dirname, '../support/python-sdk-client.py')], {
        env: childEnv({
          PROXY: proxy,
          CA: caFile,
          CODE: code,
          CLIENT_ID: f.clientId,
          CLIENT_SECRET: f.clientSecret,
          REDIRECT_URI: f.redirectUri,
        }),
        timeout: 60_000,
      });
      expect(JSON.parse(stdout.trim())).toEqual({
        sdk: expect.any(String),
        hubId: f.hubId,
        expiresIn: 1800,
        properties: expect.any(Number),
        email: true,
      });
    },
    90_000,
  );

  /**
   * docs/testing-your-app.md's Chromium recipe, run as written (`$CA` set, `N` the front's port): its
   * shell lines make the browser's own NSS database; its `HOME=… chromium …` line gives the home and
   * the flags the browser is launched with (through Playwright, headless).
   */
  async function chromiumAsDocumented(extraArgs: string[] = []) {
    const doc = readFileSync(join(__dirname, '../../docs/testing-your-app.md'), 'utf8');
    const block = [...doc.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!).find((b) => b.includes('certutil'));
    expect(block).toBeDefined();
    const lines = block!
      .split('\n')
      .map((l) => l.trim().replace(/127\.0\.0\.1:N\b/g, new URL(proxy).host))
      .filter((l) => l !== '');
    const launch = lines.pop()!;
    expect(launch).toMatch(/^HOME=\S+ chromium /);
    // The launch line's words as the shell makes them: the home first, then chromium's flags.
    const script = [...lines, launch.replace(/^HOME=(\S+) chromium /, "printf '%s\\n' $1 ")].join('\n');
    const { stdout } = await run('sh', ['-ec', script], { env: childEnv({ CA: caFile }), timeout: 30_000 });
    const [home, ...flags] = stdout.trim().split('\n');
    const userDataDir = flags.find((f) => f.startsWith('--user-data-dir='))!.slice('--user-data-dir='.length);
    const context = await chromium.launchPersistentContext(userDataDir, {
      executablePath: CHROMIUM,
      env: { ...childEnv(), HOME: home! },
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        ...flags.filter((f) => !f.startsWith('--user-data-dir=')),
        ...extraArgs,
      ],
    });
    return {
      context,
      home: home!,
      close: () => context.close().finally(() => rmSync(home!, { recursive: true, force: true })),
    };
  }

  browserTest(
    'Chromium started as docs/testing-your-app.md says (its own NSS database trusting the CA) opens the install page at https://app.hubspot.com/oauth/authorize',
    async () => {
      const browser = await chromiumAsDocumented();
      try {
        const page = await browser.context.newPage();
        const url =
          `https://app.hubspot.com/oauth/authorize?client_id=${f.clientId}` +
          `&redirect_uri=${encodeURIComponent(f.redirectUri)}&scope=${encodeURIComponent(f.requiredScopes.join(' '))}`;
        const response = await page.goto(url);
        expect(response?.status()).toBe(200);
        expect(new URL(page.url()).host).toBe('app.hubspot.com');
        await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toMatch(/^Sign in to connect /);
      } finally {
        await browser.close();
      }
    },
  );

  browserTest(
    "that Chromium trusts the CA for HubSpot's names only: not a self-signed certificate sent with the CA's, not an IP address, not another name (issue 41, item 6)",
    async () => {
      const ec = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;
      const caPem = readFileSync(caFile, 'utf8');
      const caCert = new x509.X509Certificate(caPem);
      const caKey = await webcrypto.subtle.importKey(
        'pkcs8',
        x509.PemConverter.decode(readFileSync(join(t.dataDir, 'hubspot-hosts-ca-key.pem'), 'utf8'))[0]!,
        ec,
        false,
        ['sign'],
      );
      /** A certificate for `names`, signed by the (leaked) CA key, or self-signed; the CA's certificate sent after it. */
      const certificate = async (subject: string, names: x509.JsonGeneralName[], selfSigned = false) => {
        const keys = await webcrypto.subtle.generateKey(ec, true, ['sign', 'verify']);
        const common = {
          notBefore: new Date(Date.now() - 86_400_000),
          notAfter: new Date(Date.now() + 30 * 86_400_000),
          signingAlgorithm: ec,
          extensions: [
            new x509.BasicConstraintsExtension(false, undefined, true),
            new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
            new x509.SubjectAlternativeNameExtension(names),
          ],
        };
        const cert = selfSigned
          ? await x509.X509CertificateGenerator.createSelfSigned({ name: subject, keys, ...common })
          : await x509.X509CertificateGenerator.create({
              subject,
              issuer: caCert.subject,
              publicKey: keys.publicKey,
              signingKey: caKey,
              ...common,
            });
        const key = x509.PemConverter.encode(await webcrypto.subtle.exportKey('pkcs8', keys.privateKey), 'PRIVATE KEY');
        return { key, cert: `${cert.toString('pem')}\n${caPem}` };
      };
      const servers: HttpsServer[] = [];
      const serve = async (pair: { key: string; cert: string }) => {
        const server = createHttpsServer(pair, (_q, r) => r.end('<h1>impostor</h1>'));
        servers.push(server);
        await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
        return (server.address() as { port: number }).port;
      };
      const dns = (value: string) => ({ type: 'dns' as const, value });
      const impostor = await serve(await certificate(leafSubject('app.hubspot.com'), [dns('app.hubspot.com')], true));
      const ip = await serve(await certificate(leafSubject('app.hubspot.com'), [{ type: 'ip', value: '127.0.0.1' }]));
      const other = await serve(await certificate(leafSubject('app.hubspot.com'), [dns('bank.example.com')]));
      const genuine = await serve(await certificate(leafSubject('app.hubspot.com'), [dns('app.hubspot.com')]));
      // Straight to these servers, not through the front: names resolved to 127.0.0.1 by the browser.
      const browser = await chromiumAsDocumented([
        '--proxy-server=direct://',
        '--host-resolver-rules=MAP app.hubspot.com 127.0.0.1, MAP bank.example.com 127.0.0.1',
      ]);
      try {
        const page = await browser.context.newPage();
        const outcome = (url: string) =>
          page.goto(url).then(
            (r) => `HTTP ${r?.status()}`,
            (e: Error) => /net::(ERR_[A-Z_]+)/.exec(e.message)?.[1] ?? e.message,
          );
        expect(await outcome(`https://app.hubspot.com:${genuine}/`)).toBe('HTTP 200'); // the set-up works
        expect(await outcome(`https://app.hubspot.com:${impostor}/`)).toMatch(/^ERR_CERT_/);
        expect(await outcome(`https://127.0.0.1:${ip}/`)).toMatch(/^ERR_CERT_/);
        expect(await outcome(`https://bank.example.com:${other}/`)).toMatch(/^ERR_CERT_/);
      } finally {
        await browser.close();
        for (const server of servers) server.close();
      }
    },
  );

  /** A raw CONNECT: the proxy's status line and headers. */
  const rawConnect = (authority: string) =>
    new Promise<string>((resolve, reject) => {
      const socket = connect(Number(new URL(proxy).port), '127.0.0.1', () =>
        socket.write(`CONNECT ${authority} HTTP/1.1\r\nHost: ${authority}\r\n\r\n`),
      );
      let text = '';
      socket.on('data', (d) => {
        text += d.toString('utf8');
        if (text.includes('\r\n\r\n')) {
          socket.destroy();
          resolve(text);
        }
      });
      socket.on('error', reject);
      socket.setTimeout(10_000, () => reject(new Error('no answer')));
    });

  it('refuses every other host and port: never a general proxy', async () => {
    for (const authority of [
      'example.com:443',
      'api.hubapi.com:80',
      'api.hubapi.com.evil.test:443',
      '127.0.0.1:443',
      'hubapi.com:443',
      'garbage',
    ]) {
      const answer = await rawConnect(authority);
      expect([authority, answer.split('\r\n')[0]]).toEqual([authority, 'HTTP/1.1 403 Forbidden']);
    }
    expect((await rawConnect('api.hubapi.com:443')).split('\r\n')[0]).toBe('HTTP/1.1 200 Connection Established');
    const plain = await fetch(`${proxy}/crm/v3/properties/contacts`);
    expect(plain.status).toBe(405);
    expect(await plain.json()).toMatchObject({ status: 'error', category: 'FORBIDDEN' });
  });

  it('keeps the same CA across a restart', async () => {
    const before = readFileSync(caFile, 'utf8');
    // One service per DATA_DIR: stop the first (keeping its folder), then start again on it.
    const dataDir = t.dataDir;
    await t.close({ keepData: true });
    t = await startTestApp({ dataDir, clock: t.clock, env: { HUBSPOT_HOSTS_PROXY_PORT: '0' } });
    expect((await t.admin('GET', '/admin/v1/hubspot-hosts-ca.pem')).body).toBe(before);
  });
});

describe('HubSpot hosts front: off by default', () => {
  it('listens on nothing, makes no CA, and the CA route answers 404', async () => {
    const t = await startTestApp();
    try {
      expect(t.app.get(HubSpotHostsFront).port).toBeNull();
      expect(existsSync(join(t.dataDir, 'hubspot-hosts-ca.pem'))).toBe(false);
      const r = await t.admin('GET', '/admin/v1/hubspot-hosts-ca.pem');
      expect(r.statusCode).toBe(404);
      expect(r.json()).toMatchObject({ status: 'error', category: 'OBJECT_NOT_FOUND' });
    } finally {
      await t.close();
    }
  });
});
