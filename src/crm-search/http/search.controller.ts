import { Body, Controller, HttpCode, Param, Post, Res } from '@nestjs/common';
import { ApiBody, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { scopeFamilyOf } from '../../crm-schema';
import { type AccessTokenClaims, Token } from '../../oauth';
import { Authenticated, type RouteFacts } from '../../platform/http/authentication';
import { type ApiVersion, versionedPaths } from '../../platform/http/api-versions';
import { WireResponse } from '../../platform/http/wire-response';
import { CrmSearchQueries } from '../application/crm-search.queries';
import { SearchRateLimit } from '../application/search-rate-limit';
import { invalidObjectTypeSegment } from '../domain/search-errors';
import { searchRequestFrom } from '../domain/search-request';
import { SearchRequestDto } from './search.dto';
import { searchScopes } from '../application/search-types';
import { SEARCH_ANSWER_SCHEMA } from './wire-schemas';

const SEARCH_PATHS = {
  v3: 'crm/v3/objects',
  '2026-03': 'crm/objects/2026-03',
  '2026-09': 'crm/objects/2026-09',
} as const satisfies Partial<Record<ApiVersion, string>>;

/** The type's read scopes, any of them (decided from the path before anything is looked up). */
const searchScopesOf = (route: RouteFacts): readonly string[] =>
  searchScopes(scopeFamilyOf(objectTypeSegment(route.params.objectType ?? '')));

/** A path's object type segment, bounded: HubSpot's 400 for what cannot be one. */
function objectTypeSegment(raw: string): string {
  if (raw === '' || raw.length > 200 || raw.includes('\u0000')) {
    throw invalidObjectTypeSegment();
  }
  return raw;
}

/**
 * `POST …/objects/{objectType}/search` at v3, 2026-03 and 2026-09 (one body and answer at every
 * version): HubSpot's search over the token's account, with its caps, its 10,000-result window and
 * its own limit of 5 searches a second per account.
 */
@ApiTags('CRM search')
@Controller(versionedPaths(SEARCH_PATHS))
export class SearchController {
  constructor(
    private readonly queries: CrmSearchQueries,
    private readonly rateLimit: SearchRateLimit,
  ) {}

  @Post(':objectType/search')
  @Authenticated({ by: 'bearer', scopes: searchScopesOf })
  @HttpCode(200)
  @ApiOperation({
    summary:
      'Search records: filterGroups (OR of ANDs, at most 5 groups, 10 filters a group, 25 in all), query, sorts, properties, limit ≤ 200, after (offset; after + limit ≤ 10,000)',
  })
  @ApiBody({ type: SearchRequestDto })
  @WireResponse(200, SEARCH_ANSWER_SCHEMA, { description: 'CollectionResponseWithTotalSimplePublicObject' })
  async search(
    @Param('objectType') objectType: string,
    @Body() body: SearchRequestDto,
    @Token() token: AccessTokenClaims,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<string> {
    const type = this.queries.resolve(token.hubId, objectTypeSegment(objectType));
    await this.rateLimit.acquire(token.hubId);
    const answer = await this.queries.searchJson(token.hubId, type, searchRequestFrom(body));
    // JSON text already (SEARCH_ANSWER_SCHEMA's shape, built on the search thread): sent as is.
    void reply.type('application/json; charset=utf-8');
    return answer;
  }
}
