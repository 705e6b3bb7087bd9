import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Res } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiBody, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import type { CommandContext } from '../../platform/events/envelope';
import { HubSpotError } from '../../platform/errors/hubspot-error';
import { type ApiVersion, RouteVersion, versionedPaths } from '../../platform/http/api-versions';
import { IntParamPipe } from '../../platform/http/int-param.pipe';
import { Ctx } from '../../platform/http/request-context';
import { VersionedBody } from '../../platform/http/versioned-body';
import { AppOwnership } from '../application/app-ownership';
import { CardsQueries } from '../application/cards.queries';
import { CreateLegacyCard } from '../application/commands/create-legacy-card';
import { DeleteLegacyCard } from '../application/commands/delete-legacy-card';
import { StartCardMigration } from '../application/commands/start-card-migration';
import { UpdateLegacyCard } from '../application/commands/update-legacy-card';
import type { CardMigrateViewsResponse } from '../domain/migration-progress';
import { CardIdParamPipe } from './card-id-param.pipe';
import { Developer, type DeveloperCaller } from './developer-authentication';
import { Authenticated } from '../../platform/http/authentication';
import { definitionFrom, patchFrom, SAMPLE_CARD_RESPONSE, toPublicCardResponse } from './card-responses';
import {
  CardCreateRequestDatedDto,
  CardCreateRequestDto,
  CardMigrateViews2026_09RequestDto,
  CardMigrateViewsRequestDto,
  CardPatchRequestDto,
} from './card.dto';
import { WireResponse } from '../../platform/http/wire-response';
import { CARDS_DOCS, SAMPLE_CARD_RESPONSE_SCHEMA } from './wire-schemas';

const READ_SCOPES = ['developers-read', 'private-apps-read'];
const WRITE_SCOPE = 'developers-write';

/** Where each version of the API lives (publicAppCrmCards.json of v3, 2026-03 and 2026-09). */
const CARDS_PATHS = {
  v3: 'crm/v3/extensions/cards-dev',
  '2026-03': 'crm/extensions/cards-dev/2026-03',
  '2026-09': 'crm/extensions/cards-dev/2026-09',
} as const satisfies Partial<Record<ApiVersion, string>>;
type CardsVersion = keyof typeof CARDS_PATHS;

/**
 * HubSpot's legacy CRM cards API, path for path, at v3 and at the date-versioned paths. What
 * differs by version: from 2026-03 `fetch.cardType` is required on create; 2026-09 drops
 * `allowDuplicateAppCardIds` from the migrate request (optional here, false when absent) and
 * answers migrate with `message` only. (2026-09's spec names the developer API key as the only
 * credential; every version takes both the developer key and the OAuth bearer token, by choice, so
 * an app moving from v3 keeps working: see docs/cards.md.)
 */
@ApiTags('crm cards')
@Controller(versionedPaths(CARDS_PATHS))
export class LegacyCardsController {
  constructor(
    private readonly commandBus: CommandBus,
    private readonly queries: CardsQueries,
    private readonly ownership: AppOwnership,
  ) {}

  @Get('sample-response')
  @ApiOperation({ summary: 'Get sample card detail response' })
  @WireResponse(200, SAMPLE_CARD_RESPONSE_SCHEMA, { description: 'IntegratorCardPayloadResponse' })
  sampleResponse() {
    return SAMPLE_CARD_RESPONSE;
  }

  @Get(':appId')
  @Authenticated({ by: 'developer', scopes: READ_SCOPES })
  @ApiOperation({ summary: 'Get all cards' })
  @WireResponse(200, CARDS_DOCS.list, { description: 'PublicCardListResponse' })
  getAll(@Param('appId', new IntParamPipe()) appId: number, @Developer() token: DeveloperCaller) {
    this.ownership.appOwnedBy(token, appId);
    return { results: this.queries.legacyCardsOfApp(appId).map(toPublicCardResponse) };
  }

  @Post(':appId')
  @HttpCode(201)
  @Authenticated({ by: 'developer', scopes: [WRITE_SCOPE] })
  @ApiOperation({ summary: 'Create a new card' })
  @WireResponse(201, CARDS_DOCS.card, { description: 'PublicCardResponse' })
  @ApiBody({ type: CardCreateRequestDto, description: 'From 2026-03 `fetch.cardType` is required.' })
  async create(
    @Param('appId', new IntParamPipe()) appId: number,
    @VersionedBody({ default: CardCreateRequestDatedDto, v3: CardCreateRequestDto })
    body: CardCreateRequestDto | CardCreateRequestDatedDto,
    @Developer() token: DeveloperCaller,
    @Ctx() ctx: CommandContext,
    @RouteVersion() version: CardsVersion,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    this.ownership.appOwnedBy(token, appId);
    const card = await this.commandBus.execute(new CreateLegacyCard(appId, definitionFrom(body), token.userId, ctx));
    void reply.header('location', `/${CARDS_PATHS[version]}/${appId}/${card.cardId}`);
    return toPublicCardResponse(card);
  }

  @Post(':appId/views/migrate')
  @HttpCode(200)
  @Authenticated({ by: 'developer', scopes: [WRITE_SCOPE] })
  @ApiOperation({ summary: 'Migrate Card In Views' })
  @WireResponse(200, CARDS_DOCS.migrate, { description: 'CardMigrateViewsResponse (2026-09: message only)' })
  @ApiBody({ type: CardMigrateViewsRequestDto, description: '2026-09 has no `allowDuplicateAppCardIds`.' })
  async migrate(
    @Param('appId', new IntParamPipe()) appId: number,
    @VersionedBody({ default: CardMigrateViewsRequestDto, '2026-09': CardMigrateViews2026_09RequestDto })
    body: CardMigrateViewsRequestDto | CardMigrateViews2026_09RequestDto,
    @Developer() token: DeveloperCaller,
    @Ctx() ctx: CommandContext,
    @RouteVersion() version: CardsVersion,
  ): Promise<CardMigrateViewsResponse | Pick<CardMigrateViewsResponse, 'message'>> {
    this.ownership.appOwnedBy(token, appId);
    const progress = await this.commandBus.execute(
      new StartCardMigration(
        {
          appId,
          legacyCardId: body.legacyCrmCardId,
          appCardId: body.appCardId,
          ...(body.helpdeskAppCardId !== undefined ? { helpdeskAppCardId: body.helpdeskAppCardId } : {}),
          allowDuplicateAppCardIds: body.allowDuplicateAppCardIds ?? false,
        },
        ctx,
      ),
    );
    // 2026-09's CardMigrateViewsResponse is `message` alone (the counts are in its text).
    return version === '2026-09' ? { message: progress.message } : progress;
  }

  @Get(':appId/:cardId')
  @Authenticated({ by: 'developer', scopes: READ_SCOPES })
  @ApiOperation({ summary: 'Get a card.' })
  @WireResponse(200, CARDS_DOCS.card, { description: 'PublicCardResponse' })
  getById(
    @Param('appId', new IntParamPipe()) appId: number,
    @Param('cardId', new CardIdParamPipe()) cardId: string,
    @Developer() token: DeveloperCaller,
  ) {
    this.ownership.appOwnedBy(token, appId);
    const card = this.queries.legacyCard(cardId);
    if (!card || card.appId !== appId)
      throw HubSpotError.notFound(`Legacy CRM card ${cardId} was not found in app ${appId}.`);
    return toPublicCardResponse(card);
  }

  @Patch(':appId/:cardId')
  @Authenticated({ by: 'developer', scopes: [WRITE_SCOPE] })
  @ApiOperation({ summary: 'Update a card' })
  @WireResponse(200, CARDS_DOCS.card, { description: 'PublicCardResponse' })
  async update(
    @Param('appId', new IntParamPipe()) appId: number,
    @Param('cardId', new CardIdParamPipe()) cardId: string,
    @Body() body: CardPatchRequestDto,
    @Developer() token: DeveloperCaller,
    @Ctx() ctx: CommandContext,
  ) {
    this.ownership.appOwnedBy(token, appId);
    return toPublicCardResponse(
      await this.commandBus.execute(new UpdateLegacyCard(appId, cardId, patchFrom(body), token.userId, ctx)),
    );
  }

  @Delete(':appId/:cardId')
  @HttpCode(204)
  @Authenticated({ by: 'developer', scopes: [WRITE_SCOPE] })
  @ApiOperation({ summary: 'Delete a card' })
  @WireResponse(204)
  async archive(
    @Param('appId', new IntParamPipe()) appId: number,
    @Param('cardId', new CardIdParamPipe()) cardId: string,
    @Developer() token: DeveloperCaller,
    @Ctx() ctx: CommandContext,
  ): Promise<void> {
    this.ownership.appOwnedBy(token, appId);
    await this.commandBus.execute(new DeleteLegacyCard(appId, cardId, token.userId, ctx));
  }
}
