// A HubSpot public app in a few dozen lines: install through the OAuth page with passport-oauth2
// (state + PKCE), exchange the code, then call the API with the access token.
// Run: node examples/public-app/app.js   (see README.md; defaults match the demo seed of `npm start`)
'use strict';
const http = require('node:http');
const { randomBytes } = require('node:crypto');
const OAuth2Strategy = require('passport-oauth2');

const HUBSPOT = (process.env.HUBSPOT_BASE_URL || 'http://127.0.0.1:3000').replace(/\/+$/, '');
const PORT = Number(process.env.PORT || 3001);
const CALLBACK_URL = process.env.CALLBACK_URL || `http://localhost:${PORT}/oauth/callback`;
const CRM_PATH = process.env.CRM_PATH || '/crm/v3/properties/contacts';
const AUTHORIZATION_URL = process.env.AUTHORIZATION_URL || `${HUBSPOT}/oauth/authorize`;

// One-time handles for state → PKCE verifier. A real app keeps these in its user's session.
const pending = new Map();
const stateStore = {
  store(req, verifier, _state, _meta, done) {
    const handle = randomBytes(16).toString('base64url');
    pending.set(handle, verifier);
    done(null, handle);
  },
  verify(req, handle, done) {
    const verifier = pending.get(handle);
    pending.delete(handle);
    done(null, verifier || false, verifier ? handle : { message: 'Unknown or reused state' });
  },
};

const strategy = new OAuth2Strategy(
  {
    authorizationURL: AUTHORIZATION_URL,
    tokenURL: `${HUBSPOT}/oauth/v1/token`,
    clientID: process.env.CLIENT_ID || '5f0c1f3e-7a52-4c2e-9d8a-2b6a1c0d9e41',
    clientSecret: process.env.CLIENT_SECRET || '0b8e6a4c-3d1f-4e9a-8c7b-6f5e4d3c2b1a',
    callbackURL: CALLBACK_URL,
    scope: (
      process.env.SCOPES ||
      'oauth developers-read developers-write crm.schemas.contacts.read crm.schemas.contacts.write crm.schemas.deals.read crm.schemas.deals.write crm.objects.contacts.read'
    ).split(' '),
    state: true,
    pkce: true,
    store: stateStore,
  },
  (accessToken, refreshToken, params, _profile, done) =>
    done(null, { accessToken, refreshToken, hubId: params.hub_id, scopes: params.scopes }),
);
// HubSpot's optional scopes travel in their own parameter.
strategy.authorizationParams = () => ({
  optional_scope:
    process.env.OPTIONAL_SCOPES ||
    'crm.schemas.custom.read crm.schemas.custom.write crm.objects.contacts.sensitive.read.v2',
});

/** Runs the strategy without the passport framework: it ends in redirect, success, fail or error. */
function authenticate(req) {
  return new Promise((resolve) => {
    const run = Object.create(strategy);
    run.redirect = (location) => resolve({ location });
    run.success = (user) => resolve({ user });
    run.fail = (info) => resolve({ failure: (info && info.message) || 'access denied' });
    run.error = (error) => resolve({ failure: error.message });
    run.authenticate(req, {});
  });
}

async function callHubSpot(path, accessToken) {
  const response = await fetch(`${HUBSPOT}${path}`, { headers: { authorization: `Bearer ${accessToken}` } });
  return { status: response.status, body: await response.json() };
}

http
  .createServer(async (req, res) => {
    const url = new URL(req.url, CALLBACK_URL);
    req.query = Object.fromEntries(url.searchParams);
    const send = (status, text, headers = {}) =>
      res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', ...headers }).end(text);
    if (url.pathname === '/') return send(200, `Open http://localhost:${PORT}/install to install this app.\n`);
    if (url.pathname !== '/install' && url.pathname !== '/oauth/callback') return send(404, 'not found\n');
    const outcome = await authenticate(req);
    if (outcome.location) return send(302, '', { location: outcome.location });
    if (outcome.failure) return send(400, `Install failed: ${outcome.failure}\n`);
    const { accessToken, hubId, scopes = [] } = outcome.user;
    const tokenInfo = await callHubSpot(`/oauth/v1/access-tokens/${accessToken}`, accessToken);
    const crm = await callHubSpot(CRM_PATH, accessToken);
    send(
      200,
      [
        `Installed in hub ${hubId} with scopes: ${scopes.join(' ')}`,
        `GET /oauth/v1/access-tokens/{token} -> ${tokenInfo.status}`,
        JSON.stringify(tokenInfo.body, null, 2),
        `GET ${CRM_PATH} -> ${crm.status}`,
        JSON.stringify(crm.body, null, 2).slice(0, 1500),
        '',
      ].join('\n'),
    );
  })
  .listen(PORT, '127.0.0.1', () =>
    console.log(`Public app on http://localhost:${PORT} — open http://localhost:${PORT}/install`),
  );
