import 'reflect-metadata'; // @peculiar/x509 needs it loaded first
import { AsnConvert } from '@peculiar/asn1-schema';
import {
  GeneralName,
  GeneralSubtree,
  GeneralSubtrees,
  id_ce_nameConstraints,
  NameConstraints,
} from '@peculiar/asn1-x509';
import * as x509 from '@peculiar/x509';
import { execFile } from 'node:child_process';
import { webcrypto } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from 'node:tls';
import { promisify } from 'node:util';
import {
  CA_CERT_FILE,
  CA_KEY_FILE,
  HubSpotHostsCa,
  leafSubject,
} from '../../src/test-controls/hosts-front/hubspot-hosts-ca';
import { childEnv } from '../support/child-env';

const run = promisify(execFile);
const HAVE_CURL = existsSync('/usr/bin/curl');
const HAVE_PYTHON = existsSync('/usr/bin/python3');
for (const [have, what] of [
  [HAVE_CURL, 'curl'],
  [HAVE_PYTHON, 'python3'],
] as const) {
  if (!have) process.stderr.write(`[hosts-ca] SKIPPED: ${what} is not installed; that client was NOT tested.\n`);
}

const EC = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;
const DAY = 86_400_000;

/**
 * Issue 41, item 6: the hosts front's CA is trusted for HubSpot's names only. With its key leaked
 * (here: read from DATA_DIR), a certificate for an IP address or a CN-only name (no SAN, the
 * dotless `CN=localhost` OpenSSL never checks against DNS constraints) must be refused by the
 * clients the recipes set up: Node, curl and Python (all OpenSSL). A certificate for a HubSpot host
 * is accepted, so each refusal is the constraint's and not the test's set-up.
 */
describe('the hosts-front CA signs for HubSpot names only, even with its key leaked', () => {
  const dir = mkdtempSync(join(tmpdir(), 'hs-ca-'));
  const caFile = join(dir, CA_CERT_FILE);
  let caCert: x509.X509Certificate;
  let caKey: webcrypto.CryptoKey;
  const servers: Server[] = [];

  beforeAll(async () => {
    await HubSpotHostsCa.loadOrCreate(dir);
    caCert = new x509.X509Certificate(readFileSync(caFile, 'utf8'));
    const der = x509.PemConverter.decode(readFileSync(join(dir, CA_KEY_FILE), 'utf8'))[0]!;
    caKey = await webcrypto.subtle.importKey('pkcs8', der, EC, false, ['sign']);
  });
  afterAll(async () => {
    for (const s of servers) await new Promise((r) => s.close(r));
    rmSync(dir, { recursive: true, force: true });
  });

  /** A leaf signed by the (leaked) CA key, as an attacker would make it. */
  async function leaf(subject: string, names: x509.JsonGeneralName[]): Promise<{ key: string; cert: string }> {
    const keys = await webcrypto.subtle.generateKey(EC, true, ['sign', 'verify']);
    const now = Date.now();
    const cert = await x509.X509CertificateGenerator.create({
      subject,
      issuer: caCert.subject,
      publicKey: keys.publicKey,
      signingKey: caKey,
      notBefore: new Date(now - DAY),
      notAfter: new Date(now + 30 * DAY),
      signingAlgorithm: EC,
      extensions: [
        new x509.BasicConstraintsExtension(false, undefined, true),
        new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
        new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
        ...(names.length > 0 ? [new x509.SubjectAlternativeNameExtension(names)] : []),
      ],
    });
    const key = x509.PemConverter.encode(await webcrypto.subtle.exportKey('pkcs8', keys.privateKey), 'PRIVATE KEY');
    return { key, cert: `${cert.toString('pem')}\n${caCert.toString('pem')}\n` };
  }

  /** An HTTPS server on 127.0.0.1 with that certificate; its port. */
  async function serve(pair: { key: string; cert: string }): Promise<number> {
    const server = createServer(pair, (_q, r) => r.end('ok'));
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return (server.address() as { port: number }).port;
  }

  /** Whether each client accepts the server as `name` (an IP address or a host name), trusting only the CA. */
  async function accepted(name: string, port: number): Promise<Record<string, boolean>> {
    const isIp = /^[\d.]+$/.test(name);
    const node = await new Promise<boolean>((resolve) => {
      const socket = connect({
        host: '127.0.0.1',
        port,
        ca: readFileSync(caFile),
        ...(isIp ? {} : { servername: name }),
      });
      socket.once('secureConnect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    const result: Record<string, boolean> = { node };
    if (HAVE_CURL) {
      const args = ['-sS', '-o', '/dev/null', '--noproxy', '*', '--cacert', caFile];
      if (!isIp) args.push('--resolve', `${name}:${port}:127.0.0.1`);
      result.curl = await run('curl', [...args, `https://${name}:${port}/`], { env: childEnv(), timeout: 20_000 }).then(
        () => true,
        () => false,
      );
    }
    if (HAVE_PYTHON) {
      const script = join(dir, 'client.py');
      writeFileSync(
        script,
        [
          'import socket, ssl, sys',
          'ctx = ssl.create_default_context(cafile=sys.argv[1])',
          "with socket.create_connection(('127.0.0.1', int(sys.argv[3]))) as s:",
          '    with ctx.wrap_socket(s, server_hostname=sys.argv[2]):',
          "        print('ok')",
        ].join('\n'),
      );
      result.python = await run('python3', [script, caFile, name, String(port)], {
        env: childEnv(),
        timeout: 20_000,
      }).then(
        () => true,
        () => false,
      );
    }
    return result;
  }

  const all = (value: boolean) => ({
    node: value,
    ...(HAVE_CURL ? { curl: value } : {}),
    ...(HAVE_PYTHON ? { python: value } : {}),
  });

  it('a certificate for a HubSpot host is accepted (the set-up works)', async () => {
    const port = await serve(await leaf(leafSubject('api.hubapi.com'), [{ type: 'dns', value: 'api.hubapi.com' }]));
    expect(await accepted('api.hubapi.com', port)).toEqual(all(true));
  });

  // Each rogue certificate has a leaf's own subject, so that one constraint at a time is tested.
  it('a certificate for another DNS name is refused', async () => {
    const port = await serve(await leaf(leafSubject('api.hubapi.com'), [{ type: 'dns', value: 'localhost' }]));
    expect(await accepted('localhost', port)).toEqual(all(false));
  });

  it.each(['127.0.0.1'])('a certificate for the IP address %s is refused', async (ip) => {
    const port = await serve(await leaf(leafSubject('api.hubapi.com'), [{ type: 'ip', value: ip }]));
    expect(await accepted(ip, port)).toEqual(all(false));
  });

  it('a certificate for the IPv6 address ::1 is refused', async () => {
    const pair = await leaf(leafSubject('api.hubapi.com'), [{ type: 'ip', value: '::1' }]);
    const server = createServer(pair, (_q, r) => r.end('ok'));
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '::1', resolve));
    const port = (server.address() as { port: number }).port;
    const node = await new Promise<boolean>((resolve) => {
      const socket = connect({ host: '::1', port, ca: readFileSync(caFile) });
      socket.once('secureConnect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    expect(node).toBe(false);
  });

  it.each([
    ['CN=localhost', 'a bare CN'],
    [leafSubject('localhost'), "the leaves' own subject with another CN"],
  ])(
    'a CN-only certificate (no subjectAltName) for the dotless name localhost is refused: %s (%s)',
    async (subject) => {
      const port = await serve(await leaf(subject, []));
      expect(await accepted('localhost', port)).toEqual(all(false));
    },
  );

  it('a CA an older version made (DNS constraints only) is kept, and reported as outdated', async () => {
    expect((await HubSpotHostsCa.loadOrCreate(dir)).constraintsCurrent).toBe(true);
    const old = mkdtempSync(join(tmpdir(), 'hs-ca-old-'));
    try {
      const keys = await webcrypto.subtle.generateKey(EC, true, ['sign', 'verify']);
      const dnsOnly = new NameConstraints({
        permittedSubtrees: new GeneralSubtrees(
          ['hubapi.com', 'hubspot.com'].map((d) => new GeneralSubtree({ base: new GeneralName({ dNSName: d }) })),
        ),
      });
      const cert = await x509.X509CertificateGenerator.createSelfSigned({
        name: 'CN=HubSpot hosts front (local test CA), O=hubspot-public-app-service',
        keys,
        notBefore: new Date(Date.now() - DAY),
        notAfter: new Date(Date.now() + 365 * DAY),
        signingAlgorithm: EC,
        extensions: [
          new x509.BasicConstraintsExtension(true, 0, true),
          new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign, true),
          new x509.Extension(id_ce_nameConstraints, true, AsnConvert.serialize(dnsOnly)),
        ],
      });
      const pem = `${cert.toString('pem')}\n`;
      writeFileSync(join(old, CA_CERT_FILE), pem);
      writeFileSync(
        join(old, CA_KEY_FILE),
        x509.PemConverter.encode(await webcrypto.subtle.exportKey('pkcs8', keys.privateKey), 'PRIVATE KEY'),
        { mode: 0o600 },
      );
      const loaded = await HubSpotHostsCa.loadOrCreate(old);
      expect(loaded.constraintsCurrent).toBe(false);
      expect(loaded.certificatePem).toBe(pem); // never replaced silently: it may be trusted already
    } finally {
      rmSync(old, { recursive: true, force: true });
    }
  });
});
