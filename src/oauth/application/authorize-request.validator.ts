import { Injectable } from '@nestjs/common';
import { AppView, DirectoryQueries } from '../../directory/directory.queries';
import { authorizeErrors, checkRequestedScopes, isRegisteredRedirectUri } from '../domain/authorize-request';

export interface AuthorizeQuery {
  clientId?: string;
  redirectUri?: string;
  /** HubSpot's `scope` or the description's `scopes`, whichever was given. */
  scope?: string;
  optionalScope?: string;
}

export interface ValidAuthorizeRequest {
  app: AppView;
  requiredScopes: string[];
  optionalScopes: string[];
}

/**
 * The authorize request's rules, shared by the install page (on every step) and ApproveInstall:
 * client and redirect URI first (an error page that never redirects), then the scopes.
 */
@Injectable()
export class AuthorizeRequestValidator {
  constructor(private readonly directory: DirectoryQueries) {}

  /** Throws a HubSpotError whose message can be shown to a person. */
  validate(q: AuthorizeQuery): ValidAuthorizeRequest {
    if (!q.clientId) throw authorizeErrors.missingClientId();
    const found = this.directory.findAppByClientId(q.clientId);
    if (!found) throw authorizeErrors.unknownClient();
    // Never hand the secret's hash further than this class.
    const { clientSecretHash: _hash, ...app } = found;
    if (!q.redirectUri) throw authorizeErrors.missingRedirectUri();
    if (!isRegisteredRedirectUri(app, q.redirectUri)) throw authorizeErrors.unregisteredRedirectUri();
    const { requiredScopes, optionalScopes } = checkRequestedScopes(app, q.scope, q.optionalScope);
    return { app, requiredScopes, optionalScopes };
  }
}
