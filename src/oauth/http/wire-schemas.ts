import { ACCOUNT_TYPES } from '../../directory';
import type { ApiVersion } from '../../platform/http/api-versions';
import {
  arrayOf,
  bool,
  dateTime,
  int32,
  int64,
  object,
  oneOf,
  str,
  strEnum,
  type WireOperation,
  type WireSchema,
  wireOperations,
} from '../../platform/http/wire-schema';

/**
 * What the OAuth endpoints send, by HubSpot's names (oauth.json of v1, v3, 2026-03 and 2026-09;
 * appUninstalls.json and accountInfo.json). Every field listed as required is always sent.
 */
const scopes = () => arrayOf(str());

/** The decoded access token of AccessTokenInfoResponse (HubSpot's SignedAccessToken). */
const SIGNED_ACCESS_TOKEN = object({
  appId: int32(),
  appInstallId: str(),
  audience: str(),
  expiresAt: int64(),
  hubId: int32(),
  hublet: str(),
  installingUserId: int32(),
  isPrivateDistribution: bool(),
  isServiceAccount: bool(),
  isUserLevel: bool(),
  newSignature: str(),
  scopeToScopeGroupPks: str(),
  scopes: str(),
  signature: str(),
  trialScopeToScopeGroupPks: str(),
  trialScopes: str(),
  userId: int32(),
});

const installTokenFields = () => ({
  token: str(),
  user: str(),
  hub_domain: str(),
  scopes: scopes(),
  signed_access_token: SIGNED_ACCESS_TOKEN,
  hub_id: int32(),
  app_id: int32(),
  expires_in: int64(),
  user_id: int32(),
  is_private_distribution: bool(),
});

/** GET /oauth/v1/access-tokens/{token}. */
export const ACCESS_TOKEN_INFO_SCHEMA = object({ ...installTokenFields(), token_type: strEnum('access') });

/** GET /oauth/v1/refresh-tokens/{token}. */
export const REFRESH_TOKEN_INFO_SCHEMA = object({
  token: str(),
  user: str(),
  hub_domain: str(),
  scopes: scopes(),
  hub_id: int32(),
  client_id: str(),
  user_id: int32(),
  token_type: strEnum('refresh'),
});

/** The token endpoint's answer to the authorization_code and refresh_token grants. */
export const ACCESS_TOKEN_RESPONSE_SCHEMA = object({
  token_type: strEnum('bearer'),
  access_token: str(),
  refresh_token: str(),
  expires_in: int64(),
  token_use: strEnum('access_token'),
  hub_id: int32(),
  user_id: int32(),
  scopes: scopes(),
});

/** The client_credentials grant (v3, 2026-03): an app token, no refresh token, no account. */
export const CLIENT_CREDENTIALS_TOKEN_RESPONSE_SCHEMA = object({
  token_type: strEnum('bearer'),
  access_token: str(),
  expires_in: int64(),
  token_use: strEnum('client_credentials'),
  scopes: scopes(),
});

/** The token endpoint per version: client_credentials exists at v3 and 2026-03 only. */
export const TOKEN_RESPONSE_SCHEMAS: Record<ApiVersion, WireSchema> = {
  v1: ACCESS_TOKEN_RESPONSE_SCHEMA,
  v3: oneOf(ACCESS_TOKEN_RESPONSE_SCHEMA, CLIENT_CREDENTIALS_TOKEN_RESPONSE_SCHEMA),
  '2026-03': oneOf(ACCESS_TOKEN_RESPONSE_SCHEMA, CLIENT_CREDENTIALS_TOKEN_RESPONSE_SCHEMA),
  '2026-09': ACCESS_TOKEN_RESPONSE_SCHEMA,
};

const PUBLIC_ACCESS_TOKEN_INFO = object({
  active: { type: 'boolean', enum: [true] },
  ...installTokenFields(),
  client_id: str(),
  token_type: str(),
  token_use: strEnum('access_token'),
});

const PUBLIC_REFRESH_TOKEN_INFO = object({
  active: { type: 'boolean', enum: [true] },
  token: str(),
  user: str(),
  hub_domain: str(),
  scopes: scopes(),
  hub_id: int32(),
  app_id: int32(),
  client_id: str(),
  user_id: int32(),
  token_type: strEnum('refresh'),
  token_use: strEnum('refresh_token'),
});

/** RFC 7662: any token that is not the caller's live token (HubSpot's specs do not list this answer). */
const INACTIVE_TOKEN_INFO = object({ active: { type: 'boolean', enum: [false] } });

/** POST .../token/introspect at every version. */
export const INTROSPECTION_SCHEMA = oneOf(PUBLIC_ACCESS_TOKEN_INFO, PUBLIC_REFRESH_TOKEN_INFO, INACTIVE_TOKEN_INFO);

/** GET /account-info/{version}/details (HubSpot's PortalInformationResponse). */
export const PORTAL_INFORMATION_SCHEMA = object({
  portalId: int32(),
  accountType: strEnum(...ACCOUNT_TYPES),
  timeZone: str(),
  companyCurrency: str(),
  additionalCurrencies: arrayOf(str()),
  utcOffset: str(),
  utcOffsetMilliseconds: int64(),
  uiDomain: str(),
  dataHostingLocation: str(),
});

/**
 * GET /account-info/{version}/api-usage/daily/private-apps (HubSpot's CollectionResponseApiUsageNoPaging):
 * one ApiUsage, the account's calls today counted by this service. It is never a cached or failed
 * fetch, and it always says when the day resets.
 */
export const API_USAGE_SCHEMA = object({
  results: arrayOf(
    object({
      name: strEnum('private-apps-api-calls-daily'),
      usageLimit: int32(),
      currentUsage: int32(),
      collectedAt: dateTime(),
      fetchStatus: strEnum('SUCCESS'),
      resetsAt: dateTime(),
    }),
  ),
});

/** Component schemas by HubSpot's names, per version (for lookups by name). */
export function oauthWireComponents(version: ApiVersion): Record<string, WireSchema> {
  const tokens: Record<string, WireSchema> = {
    AccessTokenResponse: ACCESS_TOKEN_RESPONSE_SCHEMA,
    TokenResponseIF: TOKEN_RESPONSE_SCHEMAS[version],
  };
  if (version === 'v3' || version === '2026-03')
    tokens.ClientCredentialsTokenResponse = CLIENT_CREDENTIALS_TOKEN_RESPONSE_SCHEMA;
  if (version === 'v1')
    return {
      ...tokens,
      AccessTokenInfoResponse: ACCESS_TOKEN_INFO_SCHEMA,
      RefreshTokenInfoResponse: REFRESH_TOKEN_INFO_SCHEMA,
    };
  return {
    ...tokens,
    TokenInfoResponseBaseIF: INTROSPECTION_SCHEMA,
    PublicAccessTokenInfoResponse: PUBLIC_ACCESS_TOKEN_INFO,
    PublicRefreshTokenInfoResponse: PUBLIC_REFRESH_TOKEN_INFO,
  };
}

const CURRENT = ['v3', '2026-03', '2026-09'] as const;
const atEach = (file: string, prefix: (v: string) => string) =>
  Object.fromEntries(
    CURRENT.map((v) => [v, { prefix: prefix(v), specFile: v === 'v3' ? `v3/${file}` : `${v}/${file}` }]),
  );

/** Every success answer of the OAuth module's HubSpot endpoints. */
export const OAUTH_WIRE_OPERATIONS: WireOperation[] = [
  ...wireOperations({ v1: { prefix: '/oauth/v1', specFile: 'oauth.json' } }, [
    { method: 'POST', path: '/token', status: 200, name: 'TokenResponseIF', schema: ACCESS_TOKEN_RESPONSE_SCHEMA },
    {
      method: 'GET',
      path: '/access-tokens/{token}',
      status: 200,
      name: 'AccessTokenInfoResponse',
      schema: ACCESS_TOKEN_INFO_SCHEMA,
    },
    {
      method: 'GET',
      path: '/refresh-tokens/{token}',
      status: 200,
      name: 'RefreshTokenInfoResponse',
      schema: REFRESH_TOKEN_INFO_SCHEMA,
    },
  ]),
  ...wireOperations(
    {
      ...atEach('oauth.json', (v) => `/oauth/${v}`),
      v3: { prefix: '/oauth/v3', specFile: 'oauth-v3/oauth.json' },
    },
    [
      { method: 'POST', path: '/token', status: 200, name: 'TokenResponseIF', schema: TOKEN_RESPONSE_SCHEMAS },
      {
        method: 'POST',
        path: '/token/introspect',
        status: 200,
        name: 'TokenInfoResponseBaseIF',
        schema: INTROSPECTION_SCHEMA,
      },
    ],
  ),
  ...wireOperations(
    atEach('accountInfo.json', (v) => `/account-info/${v}`),
    [
      {
        method: 'GET',
        path: '/details',
        status: 200,
        name: 'PortalInformationResponse',
        schema: PORTAL_INFORMATION_SCHEMA,
      },
      {
        method: 'GET',
        path: '/api-usage/daily/private-apps',
        status: 200,
        name: 'CollectionResponseApiUsageNoPaging',
        schema: API_USAGE_SCHEMA,
      },
    ],
  ),
];

/**
 * POST and GET /admin/v1/accounts/{hubId}/installs/{appId}/clock: our own admin answer (no HubSpot
 * counterpart), the install's offset and its time next to the service's (epoch ms).
 */
export const INSTALL_CLOCK_SCHEMA = object({
  appId: int32(),
  hubId: int32(),
  offsetSeconds: int64(),
  installTime: int64(),
  realTime: int64(),
});
