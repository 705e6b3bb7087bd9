// Load scenarios against the running service: one install, then autocannon on each endpoint.
import { measure } from './load.mjs';
import { REDIRECT_URI } from './service.mjs';

/**
 * Scopes the bench app asks for: the limits endpoint needs one of the custom-object scopes, the
 * properties batch read one of the contacts' schema scopes.
 */
export const BENCH_SCOPES = ['oauth', 'crm.schemas.custom.read', 'crm.schemas.contacts.read'];

/** Creates `count` authorization codes with `concurrency` admin install calls in flight. */
export async function createCodes(service, setup, count, concurrency = 32) {
  const codes = [];
  let next = 0;
  const worker = async () => {
    while (next < count) {
      next += 1;
      codes.push(await service.authorizationCode(setup));
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return codes;
}

const form = (fields) => new URLSearchParams(fields).toString();
const FORM_HEADERS = { 'content-type': 'application/x-www-form-urlencoded' };

/** The refresh grant at `/oauth/v1/token` (`version` 'v1') or at the date-versioned `/oauth/2026-03/token`. */
export async function refreshGrant(service, setup, refreshToken, version = 'v1', suffix = '') {
  return measure(`service: refresh grant (POST /oauth/${version}/token)${suffix}`, {
    pid: service.pid,
    profile: true,
    url: `${service.url}/oauth/${version}/token`,
    method: 'POST',
    headers: FORM_HEADERS,
    body: form({
      grant_type: 'refresh_token',
      client_id: setup.app.clientId,
      client_secret: setup.app.clientSecret,
      refresh_token: refreshToken,
    }),
  });
}

/** Every request redeems a fresh code: the run is bounded by the codes made beforehand. */
export async function codeExchange(service, setup, warmupCodes, codes, suffix = '') {
  const feed = (list) => {
    let i = 0;
    return (req) => ({
      ...req,
      body: form({
        grant_type: 'authorization_code',
        client_id: setup.app.clientId,
        client_secret: setup.app.clientSecret,
        redirect_uri: REDIRECT_URI,
        code: list[i++ % list.length],
      }),
    });
  };
  const base = { url: `${service.url}/oauth/v1/token`, pid: service.pid, profile: true };
  // Warm-up on its own codes, then the measured run on the others.
  await measure('(warm-up) code exchange', {
    ...base,
    warmupS: 0,
    durationS: 2,
    amount: warmupCodes.length,
    requests: [{ method: 'POST', headers: FORM_HEADERS, setupRequest: feed(warmupCodes) }],
    quiet: true,
  });
  return measure(`service: authorization-code exchange${suffix}`, {
    ...base,
    warmupS: 0,
    amount: codes.length,
    requests: [{ method: 'POST', headers: FORM_HEADERS, setupRequest: feed(codes) }],
  });
}

export async function accessTokenMetadata(service, accessToken, suffix = '') {
  return measure(`service: access-token metadata GET${suffix}`, {
    pid: service.pid,
    profile: true,
    url: `${service.url}/oauth/v1/access-tokens/${accessToken}`,
  });
}

/** RFC 7662 introspection of an access token (POST /oauth/2026-03/token/introspect): the 2026-03 metadata. */
export async function introspection(service, setup, accessToken, suffix = '') {
  return measure(`service: introspection POST (2026-03)${suffix}`, {
    pid: service.pid,
    profile: true,
    url: `${service.url}/oauth/2026-03/token/introspect`,
    method: 'POST',
    headers: FORM_HEADERS,
    body: form({ client_id: setup.app.clientId, client_secret: setup.app.clientSecret, token: accessToken }),
  });
}

export async function limitsGet(service, accessToken, suffix = '') {
  return measure(`service: limits GET (custom-object-types)${suffix}`, {
    pid: service.pid,
    profile: true,
    url: `${service.url}/crm/v3/limits/custom-object-types`,
    headers: { authorization: `Bearer ${accessToken}` },
  });
}

/**
 * A bearer-token JSON POST: the batch read of two of the contacts' properties. The token is checked
 * by the one guard every bearer route shares (issue 35 took the routes' second check away); the answer
 * is read from the properties read model, so the figure is mostly the request pipeline's cost.
 */
export async function propertiesBatchRead(service, accessToken, suffix = '') {
  return measure(`service: properties batch read POST (bearer)${suffix}`, {
    pid: service.pid,
    profile: true,
    url: `${service.url}/crm/v3/properties/contacts/batch/read`,
    method: 'POST',
    headers: { authorization: `Bearer ${accessToken}`, 'content-type': 'application/json' },
    body: JSON.stringify({ archived: false, inputs: [{ name: 'email' }, { name: 'firstname' }] }),
  });
}
