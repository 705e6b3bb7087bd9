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
