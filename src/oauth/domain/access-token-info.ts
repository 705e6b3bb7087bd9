import { encodeScopes, scopeIndex } from '../../platform/scopes/scope-catalog';
import type { AccessTokenClaims } from './access-token';

/** HubSpot's `SignedAccessToken` (oauth.json): the decoded token, its scope fields as encoded strings. */
export interface SignedAccessTokenView {
  appId: number;
  appInstallId: string;
  audience: string;
  expiresAt: number;
  hubId: number;
  hublet: string;
  installingUserId: number;
  isPrivateDistribution: boolean;
  isServiceAccount: boolean;
  isUserLevel: boolean;
  newSignature: string;
  scopeToScopeGroupPks: string;
  scopes: string;
  signature: string;
  trialScopeToScopeGroupPks: string;
  trialScopes: string;
  userId: number;
}

/** HubSpot's `AccessTokenInfoResponse`. */
export interface AccessTokenInfo {
  token: string;
  user: string;
  hub_domain: string;
  scopes: string[];
  signed_access_token: SignedAccessTokenView;
  hub_id: number;
  app_id: number;
  expires_in: number;
  user_id: number;
  token_type: 'access';
  is_private_distribution: boolean;
}

/**
 * The two encoded scope fields of a scope list. An install has one scope list, so a service sees few
 * of them: each is encoded once and remembered (keyed by the list as written, since order shows in
 * the bytes), up to SCOPE_ENCODINGS_MAX lists, after which the memo starts over.
 */
const SCOPE_ENCODINGS_MAX = 1024;
const scopeEncodings = new Map<string, { groupPks: string; scopes: string }>();

export function encodedScopeFields(scopes: readonly string[]): { groupPks: string; scopes: string } {
  const key = scopes.join(' ');
  let encoded = scopeEncodings.get(key);
  if (encoded === undefined) {
    if (scopeEncodings.size >= SCOPE_ENCODINGS_MAX) scopeEncodings.clear();
    encoded = { groupPks: encodeScopeGroupPks(scopes), scopes: encodeScopes(scopes).toString('base64') };
    scopeEncodings.set(key, encoded);
  }
  return encoded;
}

/**
 * Scope group pks as HubSpot encodes them: a compact binary list, base64. Here each catalog entry
 * is its own group, pk = catalog index + 1, written as varints.
 */
function encodeScopeGroupPks(scopes: readonly string[]): string {
  const bytes: number[] = [];
  for (const s of scopes) {
    let v = (scopeIndex(s) ?? -1) + 1;
    if (v <= 0) continue;
    while (v >= 0x80) {
      bytes.push((v & 0x7f) | 0x80);
      v >>>= 7;
    }
    bytes.push(v);
  }
  return Buffer.from(bytes).toString('base64');
}

export function accessTokenInfo(input: {
  token: string;
  claims: AccessTokenClaims;
  now: number;
  userEmail: string;
  hubDomain: string;
  audience: string;
}): AccessTokenInfo {
  const { token, claims } = input;
  const [kid, , signature] = token.split('.') as [string, string, string];
  const encoded = encodedScopeFields(claims.scopes);
  return {
    token,
    user: input.userEmail,
    hub_domain: input.hubDomain,
    scopes: claims.scopes,
    signed_access_token: {
      appId: claims.appId,
      appInstallId: claims.appInstallId ?? '',
      audience: input.audience,
      expiresAt: claims.expiresAt,
      hubId: claims.hubId,
      hublet: claims.hublet,
      installingUserId: claims.installingUserId,
      isPrivateDistribution: false,
      isServiceAccount: false,
      isUserLevel: false,
      newSignature: `${kid}.${signature}`,
      scopeToScopeGroupPks: encoded.groupPks,
      scopes: encoded.scopes,
      signature,
      trialScopeToScopeGroupPks: '',
      trialScopes: '',
      userId: claims.userId,
    },
    hub_id: claims.hubId,
    app_id: claims.appId,
    expires_in: Math.max(0, Math.floor((claims.expiresAt - input.now) / 1000)),
    user_id: claims.userId,
    token_type: 'access',
    is_private_distribution: false,
  };
}
