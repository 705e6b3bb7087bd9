import { Body, Controller, Get, Param, Put } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { DirectoryQueries } from '../../directory/directory.queries';
import type { CommandContext } from '../../platform/events/envelope';
import { IntParamPipe } from '../../platform/http/int-param.pipe';
import { Ctx } from '../../platform/http/request-context';
import { Authenticated } from '../../platform/http/authentication';
import { SearchLags, type SearchLagView, SetSearchLag } from '../application/search-lag';
import { noSuchAccount } from '../domain/search-errors';
import { SearchLagDto } from './search-lag.dto';

/**
 * The search lag test control (docs/testing-your-app.md): an account's searches see records only
 * once they are `searchLagMs` old, as HubSpot's search trails its writes. Recorded as
 * `search.SearchLagSet`; 0 turns it off (the default: searches see every committed write).
 */
@ApiTags('admin: test controls')
@Authenticated({ by: 'admin' })
@Controller('admin/v1/accounts/:hubId/search-lag')
export class SearchLagController {
  constructor(
    private readonly commandBus: CommandBus,
    private readonly lags: SearchLags,
    private readonly directory: DirectoryQueries,
  ) {}

  @Put()
  @ApiOperation({ summary: 'Set the account’s search lag in milliseconds (0: off) (search.SearchLagSet)' })
  set(
    @Param('hubId', new IntParamPipe()) hubId: number,
    @Body() body: SearchLagDto,
    @Ctx() ctx: CommandContext,
  ): Promise<SearchLagView> {
    return this.commandBus.execute(new SetSearchLag(hubId, body.searchLagMs, ctx));
  }

  @Get()
  @ApiOperation({ summary: 'The account’s search lag in milliseconds (0: off)' })
  get(@Param('hubId', new IntParamPipe()) hubId: number): SearchLagView {
    if (!this.directory.getAccount(hubId)) throw noSuchAccount(hubId);
    return { hubId, searchLagMs: this.lags.of(hubId) };
  }
}
