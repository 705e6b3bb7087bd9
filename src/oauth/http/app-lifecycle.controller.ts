import { Controller, Delete, Get, HttpCode, Inject } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { type AccountDetailsView, DirectoryQueries } from '../../directory/directory.queries';
import { CLOCK, type Clock } from '../../platform/clock';
import type { CommandContext } from '../../platform/events/envelope';
import { HubSpotError } from '../../platform/errors/hubspot-error';
import { versionedPaths } from '../../platform/http/api-versions';
import { Ctx } from '../../platform/http/request-context';
import type { Tier } from '../../platform/tiers';
import { Uninstall } from '../application/commands/uninstall';
import type { AccessTokenClaims } from '../domain/access-token';
import { localDay } from '../domain/local-day';
import { DailyApiUsage } from '../rate-limit/daily-api-usage';
import { Token } from './bearer-authentication';
import { Authenticated } from '../../platform/http/authentication';
import { WireResponse } from '../../platform/http/wire-response';
import { API_USAGE_SCHEMA, PORTAL_INFORMATION_SCHEMA } from './wire-schemas';

/**
 * `DELETE /appinstalls/{v3|2026-03|2026-09}/external-install` (appUninstalls.json): the app
 * uninstalls itself from the account its token is for — the same Uninstall command and
 * `oauth.AppUninstalled` event as the admin API's uninstall, with the token as the actor.
 */
@ApiTags('app lifecycle')
@Controller(
  versionedPaths({ v3: 'appinstalls/v3', '2026-03': 'appinstalls/2026-03', '2026-09': 'appinstalls/2026-09' }),
)
export class AppUninstallsController {
  constructor(private readonly commandBus: CommandBus) {}

  @Delete('external-install')
  @HttpCode(204)
  @Authenticated({ by: 'bearer', scopes: ['oauth'] })
  @ApiOperation({ summary: "Uninstall the token's app from the token's account" })
  @WireResponse(204)
  async uninstall(@Token() token: AccessTokenClaims, @Ctx() ctx: CommandContext): Promise<void> {
    await this.commandBus.execute(new Uninstall(token.appId, token.hubId, ctx));
  }
}

/** HubSpot's published daily call limits of private apps per subscription tier. */
const DAILY_API_CALL_LIMITS: Record<Tier, number> = {
  free: 250_000,
  starter: 250_000,
  professional: 625_000,
  enterprise: 1_000_000,
};

/** accountInfo.json's ApiUsage, one entry of CollectionResponseApiUsageNoPaging. */
export interface ApiUsageView {
  name: 'private-apps-api-calls-daily';
  usageLimit: number;
  currentUsage: number;
  collectedAt: string;
  fetchStatus: 'SUCCESS';
  resetsAt: string;
}

/**
 * `GET /account-info/{v3|2026-03|2026-09}/details` (accountInfo.json): the PortalInformationResponse
 * of the token's account, its UTC offset computed for now (the injected clock) from its time zone;
 * and `.../api-usage/daily/private-apps`, the account's calls today.
 */
@ApiTags('account info')
@Controller(
  versionedPaths({ v3: 'account-info/v3', '2026-03': 'account-info/2026-03', '2026-09': 'account-info/2026-09' }),
)
export class AccountInfoController {
  constructor(
    private readonly directory: DirectoryQueries,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly usage: DailyApiUsage,
  ) {}

  @Get('details')
  @Authenticated({ by: 'bearer', scopes: ['oauth'] })
  @ApiOperation({ summary: "The token's account: type, time zone, currencies, data hosting location" })
  @WireResponse(200, PORTAL_INFORMATION_SCHEMA, { description: 'PortalInformationResponse' })
  details(@Token() token: AccessTokenClaims): AccountDetailsView {
    const details = this.directory.getAccountDetails(token.hubId, this.clock.now());
    if (!details) throw HubSpotError.notFound(`No account with hubId ${token.hubId}`);
    return details;
  }

  /**
   * The account's calls so far today, its day taken in its own time zone (resetsAt: its next local
   * midnight). This service has no private apps: the figure counts every call made with an OAuth
   * access token for the account before this one (see DailyApiUsage for what counts).
   */
  @Get('api-usage/daily/private-apps')
  @Authenticated({ by: 'bearer', scopes: ['oauth'] })
  @ApiOperation({ summary: "The token's account's API calls today (its time zone), with its daily limit" })
  @WireResponse(200, API_USAGE_SCHEMA, { description: 'CollectionResponseApiUsageNoPaging' })
  dailyUsage(@Token() token: AccessTokenClaims): { results: ApiUsageView[] } {
    const account = this.directory.getAccountWithSettings(token.hubId);
    if (!account) throw HubSpotError.notFound(`No account with hubId ${token.hubId}`);
    const now = this.clock.now();
    const day = localDay(account.timeZone, now);
    return {
      results: [
        {
          name: 'private-apps-api-calls-daily',
          usageLimit: DAILY_API_CALL_LIMITS[account.tier],
          currentUsage: this.usage.countSince(token.hubId, day.start),
          collectedAt: new Date(now).toISOString(),
          fetchStatus: 'SUCCESS',
          resetsAt: new Date(day.end).toISOString(),
        },
      ],
    };
  }
}
