import 'reflect-metadata'; // before @peculiar/x509 (tsyringe)
import { spawnSync } from 'node:child_process';
import { webcrypto, X509Certificate } from 'node:crypto';
import * as x509 from '@peculiar/x509';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  CA_CERT_FILE,
  CA_KEY_FILE,
  HubSpotHostsCa,
  leafSubject,
} from '../../src/test-controls/hosts-front/hubspot-hosts-ca';
import { connectTarget } from '../../src/test-controls/hosts-front/hubspot-hosts-front';
import { frontInstructions } from '../../src/test-controls/hosts-front/front-instructions';
import { hubSpotHostOf, onceAWhile } from '../../src/test-controls/hosts-front/transparent-front';
import { ConfigError, loadConfig } from '../../src/platform/config/config';

const base = { ADMIN_API_KEY: 'x'.repeat(16), SEED: 'none' };

describe('HUBSPOT_HOSTS_PROXY_PORT', () => {
  it('is off unless set; takes a port, 0 for any free one', () => {
    expect(loadConfig(base).hubspotHostsProxyPort).toBeNull();
    expect(loadConfig({ ...base, HUBSPOT_HOSTS_PROXY_PORT: '8443' }).hubspotHostsProxyPort).toBe(8443);
    expect(loadConfig({ ...base, HUBSPOT_HOSTS_PROXY_PORT: '0' }).hubspotHostsProxyPort).toBe(0);
  });

  it.each(['-1', '65536', 'abc', '80.5'])('refuses %s', (value) => {
    expect(() => loadConfig({ ...base, HUBSPOT_HOSTS_PROXY_PORT: value })).toThrow(ConfigError);
  });

  it('must differ from PORT', () => {
    expect(() => loadConfig({ ...base, PORT: '3000', HUBSPOT_HOSTS_PROXY_PORT: '3000' })).toThrow(
      /HUBSPOT_HOSTS_PROXY_PORT must differ from PORT/,
    );
  });
});

describe('HUBSPOT_HOSTS_TLS_PORT', () => {
  it('is off unless set; takes a port, 0 for any free one', () => {
    expect(loadConfig(base).hubspotHostsTlsPort).toBeNull();
    expect(loadConfig({ ...base, HUBSPOT_HOSTS_TLS_PORT: '443' }).hubspotHostsTlsPort).toBe(443);
    expect(loadConfig({ ...base, HUBSPOT_HOSTS_TLS_PORT: '0' }).hubspotHostsTlsPort).toBe(0);
  });

  it.each(['-1', '65536', 'abc', '443.0', ' 443'])('refuses %p, saying so', (value) => {
    expect(() => loadConfig({ ...base, HUBSPOT_HOSTS_TLS_PORT: value })).toThrow(
      /HUBSPOT_HOSTS_TLS_PORT must be an integer from 0 to 65535/,
    );
  });

  it('must differ from PORT and from HUBSPOT_HOSTS_PROXY_PORT (0, any free port, may repeat)', () => {
    expect(() => loadConfig({ ...base, PORT: '3000', HUBSPOT_HOSTS_TLS_PORT: '3000' })).toThrow(
      /HUBSPOT_HOSTS_TLS_PORT must differ from PORT/,
    );
    expect(() => loadConfig({ ...base, HUBSPOT_HOSTS_PROXY_PORT: '8443', HUBSPOT_HOSTS_TLS_PORT: '8443' })).toThrow(
      /HUBSPOT_HOSTS_TLS_PORT must differ from HUBSPOT_HOSTS_PROXY_PORT/,
    );
    expect(
      loadConfig({ ...base, PORT: '0', HUBSPOT_HOSTS_PROXY_PORT: '0', HUBSPOT_HOSTS_TLS_PORT: '0' }),
    ).toMatchObject({ port: 0, hubspotHostsProxyPort: 0, hubspotHostsTlsPort: 0 });
  });

  it('is listed with the other problems', () => {
    expect(() => loadConfig({ ...base, PORT: 'x', HUBSPOT_HOSTS_TLS_PORT: 'y' })).toThrow(
      expect.objectContaining({
        problems: [expect.stringMatching(/^PORT /), expect.stringMatching(/^HUBSPOT_HOSTS_TLS_PORT /)],
      }),
    );
  });
});

describe('hubSpotHostOf (the transparent front picks a certificate by SNI)', () => {
  it.each([
    ['api.hubapi.com', 'api.hubapi.com'],
    ['API.HubAPI.com', 'api.hubapi.com'],
    ['api.hubapi.com.', 'api.hubapi.com'],
    ['app-eu1.hubspot.com', 'app-eu1.hubspot.com'],
  ])('%p is %p', (sni, host) => {
    expect(hubSpotHostOf(sni)).toBe(host);
  });
  it.each([
    undefined,
    null,
    false,
    '',
    'hubapi.com',
    'www.hubspot.com',
    'api.hubapi.com.evil.test',
    'evil.api.hubapi.com',
  ])('%p is none', (sni) => {
    expect(hubSpotHostOf(sni as string | false | null | undefined)).toBeNull();
  });
});

describe('onceAWhile (the refusal lines of the transparent front)', () => {
  it('writes each distinct line at once, then at most once per 10 s with the repeats counted', () => {
    let now = 0;
    const written: string[] = [];
    const say = onceAWhile(
      (line) => written.push(line),
      () => now,
    );
    say('refused a');
    say('refused a');
    say('refused b');
    now = 9_999;
    say('refused a');
    expect(written).toEqual(['refused a', 'refused b']);
    now = 10_000;
    say('refused a');
    now = 20_000;
    say('refused a');
    expect(written).toEqual([
      'refused a',
      'refused b',
      'refused a (and 2 time(s) more since the last such line)',
      'refused a',
    ]);
  });
});

describe('frontInstructions (the lines the start log gives to copy)', () => {
  const caFile = '/srv/data/hubspot-hosts-ca.pem';
  it('proxy mode: Node 24, Python requests, the Python SDK and curl, with this start’s address and CA', () => {
    const lines = frontInstructions({ host: '127.0.0.1', proxyPort: 8443, tlsPort: null, caFile });
    expect(lines).toEqual([
      expect.stringContaining('proxy mode on http://127.0.0.1:8443'),
      '  Node.js 24+:     NODE_USE_ENV_PROXY=1 HTTPS_PROXY=http://127.0.0.1:8443 NODE_EXTRA_CA_CERTS=/srv/data/hubspot-hosts-ca.pem',
      '  Python requests: HTTPS_PROXY=http://127.0.0.1:8443 REQUESTS_CA_BUNDLE=/srv/data/hubspot-hosts-ca.pem',
      '  hubspot-api-client (Python): Configuration(proxy="http://127.0.0.1:8443", ssl_ca_cert="/srv/data/hubspot-hosts-ca.pem")',
      '  curl:            curl --proxy http://127.0.0.1:8443 --cacert /srv/data/hubspot-hosts-ca.pem https://api.hubapi.com/...',
    ]);
  });
  it('transparent mode: the mapping, the port to send 443 to, and the CA per client', () => {
    const lines = frontInstructions({ host: '0.0.0.0', proxyPort: null, tlsPort: 8444, caFile });
    expect(lines[0]).toMatch(
      /transparent mode on 127\.0\.0\.1:8444 .*--add-host api\.hubapi\.com:<address>.*-p 443:8444/,
    );
    expect(lines.slice(1)).toEqual([
      '  Node.js (any version): NODE_EXTRA_CA_CERTS=/srv/data/hubspot-hosts-ca.pem',
      '  Python requests:       REQUESTS_CA_BUNDLE=/srv/data/hubspot-hosts-ca.pem',
      '  hubspot-api-client (Python): Configuration(ssl_ca_cert="/srv/data/hubspot-hosts-ca.pem")',
      '  curl:                  curl --resolve api.hubapi.com:8444:127.0.0.1 --cacert /srv/data/hubspot-hosts-ca.pem https://api.hubapi.com:8444/...',
    ]);
    expect(frontInstructions({ host: '::', proxyPort: null, tlsPort: 443, caFile })[0]).not.toContain('-p 443:');
  });
  it('quotes a CA path the shell would split', () => {
    const [, node] = frontInstructions({ host: '127.0.0.1', proxyPort: null, tlsPort: 1, caFile: "/my data/it's.pem" });
    expect(node).toBe("  Node.js (any version): NODE_EXTRA_CA_CERTS='/my data/it'\\''s.pem'");
  });
});

describe('connectTarget', () => {
  it('reads host:port, lower-cased', () => {
    expect(connectTarget('API.HubAPI.com:443')).toEqual({ host: 'api.hubapi.com', port: 443 });
  });
  it.each([undefined, '', 'api.hubapi.com', 'api.hubapi.com:', '[::1]:443', 'a b:443', 'user@api.hubapi.com:443'])(
    'refuses %p',
    (authority) => {
      expect(connectTarget(authority)).toBeNull();
    },
  );
});

describe('HubSpotHostsCa', () => {
  const dirs: string[] = [];
  const fresh = () => {
    const dir = mkdtempSync(join(tmpdir(), 'hs-ca-'));
    dirs.push(dir);
    return dir;
  };
  afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

  it('is made once: a second load gives the same CA; leaves chain to it for HubSpot hosts only', async () => {
    const dir = fresh();
    const ca = await HubSpotHostsCa.loadOrCreate(dir);
    expect(statSync(join(dir, CA_KEY_FILE)).mode & 0o777).toBe(0o600);
    const again = await HubSpotHostsCa.loadOrCreate(dir);
    expect(again.certificatePem).toBe(ca.certificatePem);
    const leaf = await again.leaf('api.hubapi.com');
    const [leafPem] = leaf.cert.split(/(?<=-----END CERTIFICATE-----)\n/);
    const cert = new X509Certificate(leafPem!);
    expect(cert.checkIssued(new X509Certificate(ca.certificatePem))).toBe(true);
    expect(cert.checkHost('api.hubapi.com')).toBe('api.hubapi.com');
    expect(cert.checkHost('example.com')).toBeUndefined();
    expect(() => again.leaf('example.com')).toThrow(/not a HubSpot host/);
  });

  const openssl = existsSync('/usr/bin/openssl') ? it : it.skip; // skipped only where openssl is not installed
  openssl('is name-constrained: a certificate it signed for another domain fails verification', async () => {
    const dir = fresh();
    const ca = await HubSpotHostsCa.loadOrCreate(dir);
    const ec = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' };
    const caKey = await webcrypto.subtle.importKey(
      'pkcs8',
      x509.PemConverter.decode(readFileSync(join(dir, CA_KEY_FILE), 'utf8'))[0]!,
      ec,
      false,
      ['sign'],
    );
    const keys = await webcrypto.subtle.generateKey(ec, true, ['sign', 'verify']);
    const issue = async (host: string) =>
      (
        await x509.X509CertificateGenerator.create({
          subject: leafSubject(host), // the leaves' own subject: the CA permits no other
          issuer: new x509.X509Certificate(ca.certificatePem).subject,
          publicKey: keys.publicKey as never,
          signingKey: caKey as never,
          signingAlgorithm: ec,
          extensions: [new x509.SubjectAlternativeNameExtension([{ type: 'dns', value: host }])],
        })
      ).toString('pem');
    const verify = (pem: string) => {
      writeFileSync(join(dir, 'leaf.pem'), pem);
      return spawnSync('openssl', ['verify', '-CAfile', join(dir, CA_CERT_FILE), join(dir, 'leaf.pem')], {
        encoding: 'utf8',
      });
    };
    expect(verify(await issue('api.hubapi.com')).status).toBe(0);
    const outside = verify(await issue('bank.example.com'));
    expect(outside.status).not.toBe(0);
    expect(outside.stdout + outside.stderr).toMatch(/permitted subtree violation/);
  });

  it('refuses half a CA instead of replacing it', async () => {
    const dir = fresh();
    await HubSpotHostsCa.loadOrCreate(dir);
    rmSync(join(dir, CA_KEY_FILE));
    await expect(HubSpotHostsCa.loadOrCreate(dir)).rejects.toThrow(/without hubspot-hosts-ca-key.pem/);
  });
});
