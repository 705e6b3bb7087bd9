import { Body, Controller, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { CommandContext } from '../../platform/events/envelope';
import { HubSpotError } from '../../platform/errors/hubspot-error';
import { IntParamPipe } from '../../platform/http/int-param.pipe';
import { Ctx } from '../../platform/http/request-context';
import { Authenticated } from '../../platform/http/authentication';
import { ChangeAccountSettings } from '../application/commands/change-account-settings';
import { CreateAccount } from '../application/commands/create-account';
import { IssueDeveloperApiKey, type IssuedDeveloperApiKey } from '../application/commands/issue-developer-api-key';
import { AccountWithSettings, DeveloperApiKeyView, DirectoryQueries } from '../directory.queries';
import type { AccountSettingsPatch } from '../domain/account-settings';
import { AccountSettingsDto, CreateAccountDto } from './directory.dto';

const Limit = new IntParamPipe({ min: 1, max: 1000, optional: true });
const After = new IntParamPipe({ min: 0, optional: true });

/** The settings fields the request carried (class-transformer leaves absent ones undefined). */
function settingsPatchFrom(body: AccountSettingsDto): AccountSettingsPatch {
  const patch: AccountSettingsPatch = {};
  if (body.accountType !== undefined) patch.accountType = body.accountType;
  if (body.timeZone !== undefined) patch.timeZone = body.timeZone;
  if (body.companyCurrency !== undefined) patch.companyCurrency = body.companyCurrency;
  if (body.additionalCurrencies !== undefined) patch.additionalCurrencies = body.additionalCurrencies;
  return patch;
}

@ApiTags('admin: directory')
@Authenticated({ by: 'admin' })
@Controller('admin/v1/accounts')
export class AccountsController {
  constructor(
    private readonly commandBus: CommandBus,
    private readonly queries: DirectoryQueries,
  ) {}

  @Post()
  @HttpCode(201)
  create(@Body() body: CreateAccountDto, @Ctx() ctx: CommandContext): Promise<AccountWithSettings> {
    const patch = settingsPatchFrom(body);
    // The command's own answer: it holds even while the read model lags behind the commit.
    return this.commandBus.execute(
      new CreateAccount(
        body.domain,
        body.tier,
        body.hublet ?? 'na1',
        ctx,
        Object.keys(patch).length > 0 ? patch : undefined,
      ),
    );
  }

  @Get()
  list(@Query('after', After) after?: number, @Query('limit', Limit) limit?: number) {
    const results = this.queries.listAccounts(after ?? 0, limit ?? 100).map((a) => this.withSettings(a.hubId));
    return {
      results,
      ...(results.length === (limit ?? 100) ? { paging: { next: { after: String(results.at(-1)!.hubId) } } } : {}),
    };
  }

  @Get(':hubId')
  get(@Param('hubId', new IntParamPipe()) hubId: number): AccountWithSettings {
    return this.withSettings(hubId);
  }

  @Patch(':hubId')
  @ApiOperation({ summary: "Change the account's settings (time zone, currencies, account type); absent fields stay" })
  update(
    @Param('hubId', new IntParamPipe()) hubId: number,
    @Body() body: AccountSettingsDto,
    @Ctx() ctx: CommandContext,
  ): Promise<AccountWithSettings> {
    return this.commandBus.execute(new ChangeAccountSettings(hubId, settingsPatchFrom(body), ctx));
  }

  /** The only response that ever contains the key. Issuing a new key retires the previous one. */
  @Post(':hubId/developer-api-keys')
  @HttpCode(201)
  @ApiOperation({ summary: "Issue the account's developer API key (hapikey); the previous key stops working" })
  issueDeveloperApiKey(
    @Param('hubId', new IntParamPipe()) hubId: number,
    @Ctx() ctx: CommandContext,
  ): Promise<IssuedDeveloperApiKey> {
    return this.commandBus.execute(new IssueDeveloperApiKey(hubId, ctx));
  }

  @Get(':hubId/developer-api-keys')
  @ApiOperation({ summary: "The account's current developer API key: its id and issue time, never the key" })
  developerApiKeys(@Param('hubId', new IntParamPipe()) hubId: number): { results: DeveloperApiKeyView[] } {
    if (!this.queries.getAccount(hubId)) throw HubSpotError.notFound(`No account with hubId ${hubId}`);
    const key = this.queries.getDeveloperApiKey(hubId);
    return { results: key ? [key] : [] };
  }

  private withSettings(hubId: number): AccountWithSettings {
    const account = this.queries.getAccountWithSettings(hubId);
    if (!account) throw HubSpotError.notFound(`No account with hubId ${hubId}`);
    return account;
  }
}
