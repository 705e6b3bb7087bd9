import { Body, Controller, Delete, Get, HttpCode, Param, Post } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { AppToken, type AppTokenCaller } from '../../oauth';
import type { CommandContext } from '../../platform/events/envelope';
import { IntParamPipe } from '../../platform/http/int-param.pipe';
import { Ctx } from '../../platform/http/request-context';
import { WireResponse } from '../../platform/http/wire-response';
import { JournalAppBusCommand } from '../application/journal.commands';
import { type FilterView, JournalQueries, type SubscriptionView } from '../application/journal.queries';
import { filterNotFound, invalidSubscription, subscriptionNotFound } from '../domain/journal-errors';
import type { JournalSubscription } from '../domain/journal-events';
import { CrmObjectSnapshotBatchDto, FilterCreateDto, SubscriptionUpsertDto } from './journal.dto';
import { SnapshotsWrite, SubscriptionsRead, SubscriptionsWrite } from './journal-auth';
import {
  FILTER_CREATE_SCHEMA,
  FILTER_LIST_SCHEMA,
  FILTER_SCHEMA,
  SNAPSHOT_BATCH_SCHEMA,
  SUBSCRIPTION_LIST_SCHEMA,
  SUBSCRIPTION_SCHEMA,
} from './wire-schemas';

const iso = (ms: number) => new Date(ms).toISOString();
const idPipe = () => new IntParamPipe({ max: Number.MAX_SAFE_INTEGER });

export function subscriptionResponse(s: SubscriptionView) {
  return {
    actions: s.actions,
    appId: s.appId,
    createdAt: iso(s.createdAt),
    id: s.id,
    objectTypeId: s.objectTypeId,
    subscriptionType: s.subscriptionType,
    // Subscriptions are never changed in place (a change is a delete and a create).
    updatedAt: iso(s.createdAt),
    ...(s.portalId === null ? {} : { portalId: s.portalId }),
    ...(s.subscriptionType === 'OBJECT' || s.subscriptionType === 'ASSOCIATION' ? { objectIds: s.objectIds } : {}),
    ...(s.subscriptionType === 'OBJECT' || s.subscriptionType === 'APP_LIFECYCLE_EVENT'
      ? { properties: s.properties }
      : {}),
    ...(s.subscriptionType === 'ASSOCIATION' ? { associatedObjectTypeIds: s.associatedObjectTypeIds } : {}),
  };
}

const filterResponse = (f: FilterView) => ({
  createdAt: f.createdAt,
  filter: {
    conditions: f.conditions.map((c) => ({
      filterType: c.filterType,
      operator: c.operator,
      property: c.property,
      ...(c.value === undefined ? {} : { value: c.value }),
      ...(c.values === undefined ? {} : { values: c.values }),
    })),
  },
  id: f.id,
});

/** The request as one of HubSpot's five shapes, normalized (absent lists empty). */
function subscriptionOf(body: SubscriptionUpsertDto): JournalSubscription {
  const lifecycle = body.subscriptionType === 'APP_LIFECYCLE_EVENT';
  const objectTypeId = lifecycle ? body.eventTypeId : body.objectTypeId;
  if (objectTypeId === undefined) {
    const field = lifecycle ? 'eventTypeId' : 'objectTypeId';
    throw invalidSubscription(field, `${field} is required for ${body.subscriptionType} subscriptions`);
  }
  return {
    subscriptionType: body.subscriptionType,
    portalId: lifecycle ? null : (body.portalId ?? null),
    objectTypeId,
    actions: body.actions ?? [],
    objectIds: body.objectIds ?? [],
    properties: body.properties ?? [],
    associatedObjectTypeIds: body.associatedObjectTypeIds ?? [],
  };
}

/**
 * The journal's subscriptions, their filters, and the CRM snapshots (HubSpot's webhooksJournal.json,
 * 2026-03), for the app whose token calls them.
 */
@ApiTags('Webhooks journal')
@Controller('webhooks-journal')
export class JournalSubscriptionsController {
  constructor(
    private readonly commandBus: CommandBus,
    private readonly queries: JournalQueries,
  ) {}

  @Get('subscriptions/2026-03')
  @SubscriptionsRead()
  @ApiOperation({ summary: 'The app’s journal subscriptions' })
  @WireResponse(200, SUBSCRIPTION_LIST_SCHEMA, { description: 'CollectionResponseSubscriptionResponseNoPaging' })
  list(@AppToken() app: AppTokenCaller) {
    return { results: this.queries.subscriptions(app.appId).map(subscriptionResponse) };
  }

  @Post('subscriptions/2026-03')
  @HttpCode(200)
  @SubscriptionsWrite()
  @ApiOperation({
    summary:
      'Subscribe: OBJECT, ASSOCIATION, APP_LIFECYCLE_EVENT, GDPR_PRIVACY_DELETION (LIST_MEMBERSHIP refused: no lists here)',
  })
  @WireResponse(200, SUBSCRIPTION_SCHEMA, { description: 'SubscriptionResponse' })
  async create(@AppToken() app: AppTokenCaller, @Body() body: SubscriptionUpsertDto, @Ctx() ctx: CommandContext) {
    const view = await this.commandBus.execute(
      new JournalAppBusCommand(
        { type: 'CreateSubscription', appId: app.appId, subscription: subscriptionOf(body) },
        ctx,
      ),
    );
    return subscriptionResponse(view);
  }

  @Get('subscriptions/2026-03/:subscriptionId')
  @SubscriptionsRead()
  @ApiOperation({ summary: 'One subscription' })
  @WireResponse(200, SUBSCRIPTION_SCHEMA, { description: 'SubscriptionResponse' })
  get(@AppToken() app: AppTokenCaller, @Param('subscriptionId', idPipe()) id: number) {
    const s = this.queries.subscription(app.appId, id);
    if (!s) throw subscriptionNotFound(id);
    return subscriptionResponse(s);
  }

  @Delete('subscriptions/2026-03/:subscriptionId')
  @HttpCode(204)
  @SubscriptionsWrite()
  @ApiOperation({ summary: 'Delete a subscription (and its filters)' })
  async delete(
    @AppToken() app: AppTokenCaller,
    @Param('subscriptionId', idPipe()) subscriptionId: number,
    @Ctx() ctx: CommandContext,
  ): Promise<void> {
    await this.commandBus.execute(
      new JournalAppBusCommand({ type: 'DeleteSubscription', appId: app.appId, subscriptionId }, ctx),
    );
  }

  @Delete('subscriptions/2026-03/portals/:portalId')
  @HttpCode(204)
  @SubscriptionsWrite()
  @ApiOperation({ summary: 'Delete every subscription of the app that follows one account' })
  async deletePortal(
    @AppToken() app: AppTokenCaller,
    @Param('portalId', idPipe()) portalId: number,
    @Ctx() ctx: CommandContext,
  ): Promise<void> {
    await this.commandBus.execute(
      new JournalAppBusCommand({ type: 'DeletePortalSubscriptions', appId: app.appId, portalId }, ctx),
    );
  }

  @Post('subscriptions/2026-03/filters')
  @HttpCode(200)
  @SubscriptionsWrite()
  @ApiOperation({ summary: 'Add a filter (CRM_OBJECT_PROPERTY conditions) to a subscription' })
  @WireResponse(200, FILTER_CREATE_SCHEMA, { description: 'FilterCreateResponse' })
  async createFilter(@AppToken() app: AppTokenCaller, @Body() body: FilterCreateDto, @Ctx() ctx: CommandContext) {
    const conditions = body.filter.conditions.map((c) => ({
      filterType: c.filterType,
      operator: c.operator,
      property: c.property,
      ...(c.value === undefined ? {} : { value: c.value }),
      ...(c.values === undefined ? {} : { values: c.values }),
    }));
    const view = await this.commandBus.execute(
      new JournalAppBusCommand(
        { type: 'CreateFilter', appId: app.appId, subscriptionId: body.subscriptionId, conditions },
        ctx,
      ),
    );
    return { filterId: view.id };
  }

  @Get('subscriptions/2026-03/filters/subscription/:subscriptionId')
  @SubscriptionsRead()
  @ApiOperation({ summary: 'The filters of a subscription' })
  @WireResponse(200, FILTER_LIST_SCHEMA, { description: 'FilterResponse[]' })
  filtersOf(@AppToken() app: AppTokenCaller, @Param('subscriptionId', idPipe()) id: number) {
    if (!this.queries.subscription(app.appId, id)) throw subscriptionNotFound(id);
    return this.queries.filtersOf(app.appId, id).map(filterResponse);
  }

  @Get('subscriptions/2026-03/filters/:filterId')
  @SubscriptionsRead()
  @ApiOperation({ summary: 'One filter' })
  @WireResponse(200, FILTER_SCHEMA, { description: 'FilterResponse' })
  getFilter(@AppToken() app: AppTokenCaller, @Param('filterId', idPipe()) id: number) {
    const f = this.queries.filter(app.appId, id);
    if (!f) throw filterNotFound(id);
    return filterResponse(f);
  }

  @Delete('subscriptions/2026-03/filters/:filterId')
  @HttpCode(204)
  @SubscriptionsWrite()
  @ApiOperation({ summary: 'Delete a filter' })
  async deleteFilter(
    @AppToken() app: AppTokenCaller,
    @Param('filterId', idPipe()) filterId: number,
    @Ctx() ctx: CommandContext,
  ): Promise<void> {
    await this.commandBus.execute(new JournalAppBusCommand({ type: 'DeleteFilter', appId: app.appId, filterId }, ctx));
  }

  @Post('snapshots/2026-03/crm')
  @HttpCode(200)
  @SnapshotsWrite()
  @ApiOperation({ summary: 'Journal SNAPSHOT entries of records as they are now (status per record)' })
  @WireResponse(200, SNAPSHOT_BATCH_SCHEMA, { description: 'CrmObjectSnapshotBatchResponse' })
  async snapshot(@AppToken() app: AppTokenCaller, @Body() body: CrmObjectSnapshotBatchDto, @Ctx() ctx: CommandContext) {
    const requests = body.snapshotRequests.map((r) => ({
      portalId: r.portalId,
      objectTypeId: r.objectTypeId,
      objectId: r.objectId,
      properties: r.properties,
    }));
    const snapshotResponses = await this.commandBus.execute(
      new JournalAppBusCommand({ type: 'RequestSnapshots', appId: app.appId, requests }, ctx),
    );
    return { snapshotResponses };
  }
}
