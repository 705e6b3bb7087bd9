import { Body, Controller, HttpCode, Param, Post } from '@nestjs/common';
import { ApiBody, ApiOperation, ApiTags } from '@nestjs/swagger';
import { type AccessTokenClaims, missingAnyScopeError, RequireScopes, Token } from '../../oauth';
import { type ApiVersion, versionedPaths } from '../../platform/http/api-versions';
import { WireResponse } from '../../platform/http/wire-response';
import { HubSpotError } from '../../platform/errors/hubspot-error';
import { CrmSearchQueries, type SearchAnswer } from '../application/crm-search.queries';
import { SearchRateLimit } from '../application/search-rate-limit';
import { parseSearchRequest } from '../domain/search-request';
import { searchScopes } from '../domain/search-types';
import { SEARCH_ANSWER_SCHEMA } from './wire-schemas';

const SEARCH_PATHS = {
  v3: 'crm/v3/objects',
  '2026-03': 'crm/objects/2026-03',
  '2026-09': 'crm/objects/2026-09',
} as const satisfies Partial<Record<ApiVersion, string>>;

/**
 * `POST …/objects/{objectType}/search` at v3, 2026-03 and 2026-09 (one body and answer at every
 * version): HubSpot's search over the token's account, with its caps, its 10,000-result window and
 * its own limit of 5 searches a second per account.
 */
@ApiTags('CRM search')
@RequireScopes()
@Controller(versionedPaths(SEARCH_PATHS))
export class SearchController {
  constructor(
    private readonly queries: CrmSearchQueries,
    private readonly rateLimit: SearchRateLimit,
  ) {}

  @Post(':objectType/search')
  @HttpCode(200)
  @ApiOperation({
    summary:
      'Search records: filterGroups (OR of ANDs, at most 5 groups, 10 filters a group, 25 in all), query, sorts, properties, limit ≤ 200, after (offset; after + limit ≤ 10,000)',
  })
  @ApiBody({ schema: { type: 'object' } })
  @WireResponse(200, SEARCH_ANSWER_SCHEMA, { description: 'CollectionResponseWithTotalSimplePublicObject' })
  async search(
    @Param('objectType') objectType: string,
    @Body() body: unknown,
    @Token() token: AccessTokenClaims,
  ): Promise<SearchAnswer> {
    if (objectType.length > 200 || objectType.includes('\u0000')) {
      throw HubSpotError.validation('Invalid objectType', [
        { message: 'not an object type', in: 'objectType', code: 'INVALID' },
      ]);
    }
    const type = this.queries.resolve(token.hubId, objectType);
    const accepted = searchScopes(type.family);
    if (!accepted.some((s) => token.scopes.includes(s))) throw missingAnyScopeError(accepted);
    await this.rateLimit.acquire(token.hubId);
    return this.queries.search(token.hubId, type, parseSearchRequest(body));
  }
}
