import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '../../platform/config/config';
import { SigningKeyring } from '../../platform/security/signing-keys';
import { DirectoryQueries } from '../../directory';
import { CLOCK, Clock } from '../../platform/clock';
import { EventStreams } from '../../platform/commands/event-streams';
import { HubSpotError } from '../../platform/errors/hubspot-error';
import { ProjectionRunner } from '../../platform/projections/projection-runner';
import { sha256Hex } from '../../platform/security/constant-time';
import { verifyAccessToken } from '../domain/access-token';
import { AccessTokenInfo, accessTokenInfo } from '../domain/access-token-info';
import { refreshTokenStream } from '../domain/oauth-events';
import { refreshTokenDecider, refreshTokenNotFound } from '../domain/refresh-token.decider';
import { InstallQueries } from './install.queries';

/** HubSpot's `RefreshTokenInfoResponse`. */
export interface RefreshTokenInfo {
  token: string;
  user: string;
  hub_domain: string;
  scopes: string[];
  hub_id: number;
  client_id: string;
  user_id: number;
  token_type: 'refresh';
}

/**
 * Metadata of access tokens (decoded from the token itself: no store lookup) and of refresh
 * tokens (from the read model, by hash). See docs/oauth-errors.md for the error statuses.
 */
@Injectable()
export class TokenMetadataService {
  // E-mails and domains never change once created: remembering them keeps the metadata GET
  // to a signature check and two map lookups. Nothing secret is cached.
  private readonly emails = new Map<number, string>();
  private readonly domains = new Map<number, string>();

  constructor(
    private readonly keys: SigningKeyring,
    private readonly directory: DirectoryQueries,
    private readonly installs: InstallQueries,
    private readonly runner: ProjectionRunner,
    private readonly streams: EventStreams,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  accessTokenInfo(token: string): AccessTokenInfo {
    const now = this.clock.now();
    const result = verifyAccessToken(token, this.keys, now);
    if (!result.ok) {
      switch (result.reason) {
        case 'malformed':
          throw new HubSpotError(400, 'VALIDATION_ERROR', 'The access token is malformed.', {
            status: 'BAD_ACCESS_TOKEN',
            errors: [{ message: 'not an access token issued by this service', in: 'token', code: 'INVALID' }],
          });
        case 'unknown_key':
        case 'bad_signature':
          throw new HubSpotError(
            401,
            'INVALID_AUTHENTICATION',
            'The access token is not valid: its signature does not verify.',
            {
              status: 'BAD_ACCESS_TOKEN',
            },
          );
        case 'expired': {
          const minutes = Math.max(1, Math.floor((now - result.claims.expiresAt) / 60_000));
          throw new HubSpotError(
            401,
            'EXPIRED_AUTHENTICATION',
            `The OAuth token used to make this call expired ${minutes} minute(s) ago.`,
            {
              status: 'EXPIRED_ACCESS_TOKEN',
            },
          );
        }
      }
    }
    const { claims } = result;
    return accessTokenInfo({
      token,
      claims,
      now,
      userEmail: this.emailOf(claims.userId),
      hubDomain: this.domainOf(claims.hubId),
      audience: this.config.publicUrl,
    });
  }

  async refreshTokenInfo(token: string): Promise<RefreshTokenInfo> {
    const hash = sha256Hex(token);
    let view = this.installs.findUsableRefreshToken(hash);
    if (!view) {
      // Token endpoint answers do not wait for projections; a token fresh from it may not be
      // projected yet. Only a token whose stream exists is worth waiting for, and only up to its
      // own newest event: an unknown token answers at once.
      const { position } = await this.streams.load(refreshTokenStream(hash), refreshTokenDecider);
      if (position > 0) {
        await this.runner.waitFor(position);
        view = this.installs.findUsableRefreshToken(hash);
      }
    }
    if (!view) throw refreshTokenNotFound();
    return {
      token,
      user: this.emailOf(view.userId),
      hub_domain: this.domainOf(view.hubId),
      scopes: view.scopes,
      hub_id: view.hubId,
      client_id: view.clientId,
      user_id: view.userId,
      token_type: 'refresh',
    };
  }

  private emailOf(userId: number): string {
    let email = this.emails.get(userId);
    if (email === undefined) {
      email = this.directory.getUser(userId)?.email;
      if (email === undefined) return '';
      this.emails.set(userId, email);
    }
    return email;
  }

  private domainOf(hubId: number): string {
    let domain = this.domains.get(hubId);
    if (domain === undefined) {
      domain = this.directory.getAccount(hubId)?.domain;
      if (domain === undefined) return '';
      this.domains.set(hubId, domain);
    }
    return domain;
  }
}
