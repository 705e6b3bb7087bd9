// Which files' code runs for one request, on the success path: `npm run trace` (builds if needed).
// The built app runs in this process with V8's precise coverage on; after start-up and a set-up of
// an account, a user, an app, an install and a first token, the counts are reset, one request of
// each traced kind is sent, and every file of src/ in which any function ran is listed (as its
// src/ path, with its module). This is the rule docs/architecture.md's request traces count by.
import 'reflect-metadata';
import { Session } from 'node:inspector/promises';
import { createRequire } from 'node:module';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const dist = join(ROOT, 'dist');
const session = new Session();
session.connect();
await session.post('Profiler.enable');
await session.post('Profiler.startPreciseCoverage', { callCount: true, detailed: false });

const { createApp } = require(join(dist, 'app.factory.js'));
const { loadConfig } = require(join(dist, 'platform/config/config.js'));
const { featureModules } = require(join(dist, 'feature-modules.js'));
const { createLogger } = require(join(dist, 'platform/logging/logger.js'));

const ADMIN = 'trace-admin-key-0123456789';
const dataDir = mkdtempSync(join(tmpdir(), 'hs-trace-'));
const config = loadConfig({ ...process.env, DATA_DIR: dataDir, SEED: 'none', ADMIN_API_KEY: ADMIN, LOG_LEVEL: 'info' });
// At `info`, as the service runs: the request line is written (to nowhere), so logging counts.
const logger = createLogger('info', { write() {} }, { format: 'json' });
const app = await createApp({ config, clock: { now: () => Date.now() }, modules: featureModules(), logger });
await app.init();
const fastify = app.getHttpAdapter().getInstance();
await fastify.ready();

const inject = async (method, url, { payload, headers = {}, form } = {}) => {
  const r = await fastify.inject({
    method,
    url,
    headers: form ? { 'content-type': 'application/x-www-form-urlencoded', ...headers } : headers,
    payload: form ? new URLSearchParams(form).toString() : payload,
  });
  if (r.statusCode >= 300) throw new Error(`${method} ${url}: ${r.statusCode} ${r.body}`);
  return r.statusCode === 204 ? null : r.json();
};
const admin = (method, url, payload) => inject(method, url, { payload, headers: { authorization: `Bearer ${ADMIN}` } });

const { hubId } = await admin('POST', '/admin/v1/accounts', { domain: 'trace.example.com', tier: 'enterprise' });
const { userId } = await admin('POST', '/admin/v1/users', {
  email: 'trace@example.com',
  password: 'correct horse battery staple',
  hubIds: [hubId],
});
const redirectUri = 'https://app.example.com/oauth/callback';
const scopes = [
  'oauth',
  'crm.schemas.contacts.read',
  'crm.schemas.contacts.write',
  'crm.objects.contacts.read',
  'crm.objects.contacts.write',
];
const { appId, clientId, clientSecret } = await admin('POST', '/admin/v1/apps', {
  developerHubId: hubId,
  name: 'Trace',
  redirectUrls: [redirectUri],
  requiredScopes: scopes,
  optionalScopes: [],
});
const { code } = await admin('POST', `/admin/v1/apps/${appId}/installs`, { hubId, userId, redirectUri });
const exchange = { client_id: clientId, client_secret: clientSecret };
const first = await inject('POST', '/oauth/v1/token', {
  form: { grant_type: 'authorization_code', code, redirect_uri: redirectUri, ...exchange },
});
const refresh = () =>
  inject('POST', '/oauth/v1/token', {
    form: { grant_type: 'refresh_token', refresh_token: first.refresh_token, ...exchange },
  });
const bearer = (token) => ({ authorization: `Bearer ${token}` });
const contact = await inject('POST', '/crm/v3/objects/contacts', {
  headers: bearer(first.access_token),
  payload: { properties: { email: 'traced@example.com', firstname: 'Traced' } },
});

/** The traced requests; each runs once before counting, so lazy set-up is not counted as the request's. */
let n = 0;
const REQUESTS = {
  'POST /oauth/v1/token (refresh grant)': refresh,
  'GET /oauth/v1/access-tokens/{token}': () => inject('GET', `/oauth/v1/access-tokens/${first.access_token}`),
  'POST /crm/v3/properties/{objectType}': () =>
    inject('POST', '/crm/v3/properties/contacts', {
      headers: bearer(first.access_token),
      payload: {
        name: `traced_${n++}`,
        label: 'Traced',
        type: 'string',
        fieldType: 'text',
        groupName: 'contactinformation',
      },
    }),
  'GET /crm/v3/objects/contacts/{contactId}': () =>
    inject('GET', `/crm/v3/objects/contacts/${contact.id}`, { headers: bearer(first.access_token) }),
  'GET /crm/v3/limits/custom-properties': () =>
    inject('GET', '/crm/v3/limits/custom-properties', { headers: bearer(first.access_token) }),
};

const only = process.argv[2];
const srcOf = (url) => {
  if (!url.startsWith('file://')) return null;
  const path = fileURLToPath(url);
  if (!path.startsWith(dist + '/') || !path.endsWith('.js')) return null;
  return join('src', relative(dist, path)).replace(/\.js$/, '.ts');
};
for (const [name, send] of Object.entries(REQUESTS)) {
  if (only && !name.includes(only)) continue;
  await send();
  await new Promise((r) => setImmediate(r));
  await session.post('Profiler.takePreciseCoverage'); // resets the counts
  await send();
  const { result } = await session.post('Profiler.takePreciseCoverage');
  const files = result
    .filter((script) => script.functions.some((f) => f.ranges[0].count > 0))
    .map((script) => srcOf(script.url))
    .filter((f) => f !== null)
    .sort();
  const moduleOf = (f) => (f.split('/').length > 2 ? f.split('/')[1] : '(root)');
  const byModule = {};
  for (const f of files) (byModule[moduleOf(f)] ??= []).push(f);
  console.log(`\n${name}: ${files.length} files`);
  for (const [m, fs] of Object.entries(byModule))
    console.log(
      `  ${m} (${fs.length}): ${fs.map((f) => (m === '(root)' ? f.slice(4) : f.slice(`src/${m}/`.length))).join(', ')}`,
    );
}

await app.close();
rmSync(dataDir, { recursive: true, force: true });
session.disconnect();
