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
      scopeToScopeGroupPks: encodeScopeGroupPks(claims.scopes),
      scopes: encodeScopes(claims.scopes).toString('base64'),
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
