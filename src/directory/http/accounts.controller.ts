import { Body, Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiTags } from '@nestjs/swagger';
import type { CommandContext } from '../../platform/events/envelope';
import { HubSpotError } from '../../platform/errors/hubspot-error';
import { IntParamPipe } from '../../platform/http/int-param.pipe';
import { Ctx } from '../../platform/http/request-context';
import { AdminOnly } from '../../platform/security/admin.guard';
import { CreateAccount } from '../application/commands/create-account';
import { AccountView, DirectoryQueries } from '../directory.queries';
import { CreateAccountDto } from './directory.dto';

const Limit = new IntParamPipe({ min: 1, max: 1000, optional: true });
const After = new IntParamPipe({ min: 0, optional: true });

@ApiTags('admin: directory')
@AdminOnly()
@Controller('admin/v1/accounts')
export class AccountsController {
  constructor(
    private readonly commandBus: CommandBus,
    private readonly queries: DirectoryQueries,
  ) {}

  @Post()
  @HttpCode(201)
  create(@Body() body: CreateAccountDto, @Ctx() ctx: CommandContext): Promise<AccountView> {
    return this.commandBus.execute(new CreateAccount(body.domain, body.tier, body.hublet ?? 'na1', ctx));
  }

  @Get()
  list(@Query('after', After) after?: number, @Query('limit', Limit) limit?: number) {
    const results = this.queries.listAccounts(after ?? 0, limit ?? 100);
    return {
      results,
      ...(results.length === (limit ?? 100) ? { paging: { next: { after: String(results.at(-1)!.hubId) } } } : {}),
    };
  }

  @Get(':hubId')
  get(@Param('hubId', new IntParamPipe()) hubId: number): AccountView {
    const account = this.queries.getAccount(hubId);
    if (!account) throw HubSpotError.notFound(`No account with hubId ${hubId}`);
    return account;
  }
}
