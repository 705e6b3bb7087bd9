import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query, Req, Res } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiOperation, ApiQuery, ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AssociationsQueries } from '../../crm-associations/crm-associations.queries';
import { scopeFamilyOf } from '../../crm-schema';
import { type AccessTokenClaims, Token } from '../../oauth';
import { Authenticated, type RouteFacts } from '../../platform/http/authentication';
import { CLOCK, type Clock } from '../../platform/clock';
import type { CommandContext } from '../../platform/events/envelope';
import { type ApiVersion, RouteVersion, versionedPaths } from '../../platform/http/api-versions';
import { Ctx } from '../../platform/http/request-context';
import { WireResponse } from '../../platform/http/wire-response';
import { Inject } from '@nestjs/common';
import { notAUniqueProperty, recordNotFound, recordsNotFoundInBatch } from '../domain/record-errors';
import type { WriteSource } from '../domain/record-events';
import { recordScopes } from '../domain/record-scopes';
import {
  type CreateAssociation,
  CrmRecordsCommand,
  type RecordBatchView,
  type StandardErrorView,
} from '../application/crm-records.commands';
import { parseRecordId, standardError } from '../application/crm-records.handler';
import { CrmRecordsQueries, RecordHistory, type RecordView } from '../application/crm-records.queries';
import { RecordSchema, type RecordType } from '../application/record-schema';
import {
  parseAfter,
  parseBoolean,
  parseIdProperty,
  parseLimit,
  parseNames,
  parseSegment,
  type Query as QueryParams,
} from './record-input';
import {
  BatchArchiveDto,
  BatchCreateDto,
  BatchReadDto,
  BatchUpdateDto,
  BatchUpsertDto,
  GdprDeleteDto,
  idPropertyOf,
  MAX_BATCH_INPUTS,
  MAX_BATCH_INPUTS_WITH_HISTORY,
  MergeDto,
  namesOf,
  propertyStrings,
  RecordCreateDto,
  RecordUpdateDto,
} from './records.dto';
import {
  RECORD_BATCH_SCHEMA,
  RECORD_PAGE_SCHEMA,
  RECORD_SCHEMA,
  RECORD_WITH_ASSOCIATIONS_SCHEMA,
  UPSERT_BATCH_SCHEMA,
} from './wire-schemas';

const RECORDS_PATHS = {
  v3: 'crm/v3/objects',
  '2026-03': 'crm/objects/2026-03',
  '2026-09': 'crm/objects/2026-09',
} as const satisfies Partial<Record<ApiVersion, string>>;
type RecordsVersion = keyof typeof RECORDS_PATHS;

/**
 * The scope rule of every records route (`@Authenticated({ scopes })`): the scopes of the path's
 * object type family, any one of them; a name that is no standard type is a custom object's. An
 * object type no path can name is the route's 400, before the scopes are asked.
 */
const recordScopesOf =
  (access: 'read' | 'write') =>
  (route: RouteFacts): readonly string[] =>
    recordScopes(scopeFamilyOf(parseSegment(route.params.objectType ?? '', 'objectType')), access);

/**
 * CRM records of the token's account at v3, 2026-03 and 2026-09 (HubSpot's objects API, whose
 * contacts, companies, deals, tickets and custom-object forms are these same routes with the type
 * in the path: `contacts`, `contact`, `0-1`, `p_<name>`, `2-<n>`). The accepted scopes depend on the
 * object type, so the guard checks the token and each route its type's scopes. Reads come from the
 * `crm-records` read model; `propertiesWithHistory` is a read of the record's stream.
 */
@ApiTags('CRM records')
@Controller(versionedPaths(RECORDS_PATHS))
export class RecordsController {
  constructor(
    private readonly commandBus: CommandBus,
    private readonly queries: CrmRecordsQueries,
    private readonly history: RecordHistory,
    private readonly schema: RecordSchema,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly associations: AssociationsQueries,
  ) {}

  @Get(':objectType')
  @Authenticated({ by: 'bearer', scopes: recordScopesOf('read') })
  @ApiOperation({ summary: 'A page of records (limit default 10, at most 100; after: the previous page’s cursor)' })
  @WireResponse(200, RECORD_PAGE_SCHEMA, {
    serialize: true,
    description: 'CollectionResponseSimplePublicObjectWithAssociationsForwardPaging',
  })
  @ApiQuery({ name: 'limit', required: false, type: Number })
  @ApiQuery({ name: 'after', required: false })
  @ApiQuery({ name: 'properties', required: false })
  @ApiQuery({ name: 'propertiesWithHistory', required: false })
  @ApiQuery({ name: 'archived', required: false, type: Boolean })
  @ApiQuery({ name: 'associations', required: false })
  async list(
    @Param('objectType') objectType: string,
    @Query() query: QueryParams,
    @Token() token: AccessTokenClaims,
    @Req() request: FastifyRequest,
  ): Promise<{ results: RecordView[]; paging?: { next: { after: string; link: string } } }> {
    const type = this.typeOf(token, objectType);
    const withHistory = parseNames(query.propertiesWithHistory, 'propertiesWithHistory');
    const properties = parseNames(query.properties, 'properties');
    const limit = parseLimit(query.limit, withHistory ? MAX_BATCH_INPUTS_WITH_HISTORY : MAX_BATCH_INPUTS);
    const page = this.queries.page(token.hubId, type.objectTypeId, {
      archived: parseBoolean(query.archived, 'archived'),
      after: parseAfter(query.after),
      limit,
      ...(properties ? { properties } : {}),
    });
    const shown = withHistory ? await this.withHistory(token.hubId, type, page.results, withHistory) : page.results;
    const results = this.withAssociations(token, type, shown, parseNames(query.associations, 'associations'));
    if (page.next === null) return { results };
    const after = String(page.next);
    return { results, paging: { next: { after, link: nextLink(request, after) } } };
  }

  @Post(':objectType')
  @Authenticated({ by: 'bearer', scopes: recordScopesOf('write') })
  @HttpCode(201)
  @ApiOperation({ summary: 'Create a record' })
  @WireResponse(201, RECORD_SCHEMA, { description: 'SimplePublicObject' })
  create(
    @Param('objectType') objectType: string,
    @Body() body: RecordCreateDto,
    @Token() token: AccessTokenClaims,
    @Ctx() ctx: CommandContext,
  ): Promise<RecordView> {
    this.typeOf(token, objectType);
    return this.commandBus.execute(
      new CrmRecordsCommand(
        {
          type: 'CreateRecord',
          hubId: token.hubId,
          objectType,
          properties: propertyStrings(body.properties),
          ...associationsOf(body),
          source: sourceOf(token),
        },
        ctx,
      ),
    );
  }

  @Get(':objectType/:objectId')
  @Authenticated({ by: 'bearer', scopes: recordScopesOf('read') })
  @ApiOperation({ summary: 'Read a record (by id, or by the value of a unique idProperty)' })
  @WireResponse(200, RECORD_WITH_ASSOCIATIONS_SCHEMA, {
    serialize: true,
    description: 'SimplePublicObjectWithAssociations',
  })
  @ApiQuery({ name: 'associations', required: false })
  @ApiQuery({ name: 'properties', required: false })
  @ApiQuery({ name: 'propertiesWithHistory', required: false })
  @ApiQuery({ name: 'archived', required: false, type: Boolean })
  @ApiQuery({ name: 'idProperty', required: false })
  async get(
    @Param('objectType') objectType: string,
    @Param('objectId') objectId: string,
    @Query() query: QueryParams,
    @Token() token: AccessTokenClaims,
  ): Promise<RecordView> {
    const type = this.typeOf(token, objectType);
    parseSegment(objectId, 'objectId');
    const properties = parseNames(query.properties, 'properties');
    const withHistory = parseNames(query.propertiesWithHistory, 'propertiesWithHistory');
    const archived = parseBoolean(query.archived, 'archived');
    const id = this.idOf(token.hubId, type, objectId, parseIdProperty(query.idProperty), archived);
    const view =
      id === null
        ? null
        : this.queries.get(token.hubId, type.objectTypeId, id, archived, properties ? { properties } : {});
    if (!view) throw recordNotFound();
    const shown = withHistory ? (await this.withHistory(token.hubId, type, [view], withHistory))[0]! : view;
    return this.withAssociations(token, type, [shown], parseNames(query.associations, 'associations'))[0]!;
  }

  @Patch(':objectType/:objectId')
  @Authenticated({ by: 'bearer', scopes: recordScopesOf('write') })
  @ApiOperation({ summary: 'Update a record’s values (only real changes are recorded)' })
  @WireResponse(200, RECORD_SCHEMA, { description: 'SimplePublicObject' })
  @ApiQuery({ name: 'idProperty', required: false })
  update(
    @Param('objectType') objectType: string,
    @Param('objectId') objectId: string,
    @Query() query: QueryParams,
    @Body() body: RecordUpdateDto,
    @Token() token: AccessTokenClaims,
    @Ctx() ctx: CommandContext,
  ): Promise<RecordView> {
    this.typeOf(token, objectType);
    parseSegment(objectId, 'objectId');
    const idProperty = parseIdProperty(query.idProperty);
    const properties = propertyStrings(body.properties);
    return this.commandBus.execute(
      new CrmRecordsCommand(
        {
          type: 'UpdateRecord',
          hubId: token.hubId,
          objectType,
          recordId: objectId,
          ...(idProperty ? { idProperty } : {}),
          properties,
          source: sourceOf(token),
        },
        ctx,
      ),
    );
  }

  @Delete(':objectType/:objectId')
  @Authenticated({ by: 'bearer', scopes: recordScopesOf('write') })
  @HttpCode(204)
  @ApiOperation({ summary: 'Archive a record (204 whatever its state)' })
  @WireResponse(204)
  async archive(
    @Param('objectType') objectType: string,
    @Param('objectId') objectId: string,
    @Token() token: AccessTokenClaims,
    @Ctx() ctx: CommandContext,
  ): Promise<void> {
    this.typeOf(token, objectType);
    parseSegment(objectId, 'objectId');
    await this.commandBus.execute(
      new CrmRecordsCommand(
        { type: 'ArchiveRecord', hubId: token.hubId, objectType, recordId: objectId, source: sourceOf(token) },
        ctx,
      ),
    );
  }

  @Post(':objectType/merge')
  @Authenticated({ by: 'bearer', scopes: recordScopesOf('write') })
  @HttpCode(200)
  @ApiOperation({ summary: 'Merge two records: objectIdToMerge into primaryObjectId (answers the primary)' })
  @WireResponse(200, RECORD_SCHEMA, { description: 'SimplePublicObject' })
  merge(
    @Param('objectType') objectType: string,
    @Body() body: MergeDto,
    @Token() token: AccessTokenClaims,
    @Ctx() ctx: CommandContext,
  ): Promise<RecordView> {
    this.typeOf(token, objectType);
    const { primaryObjectId, objectIdToMerge } = body;
    return this.commandBus.execute(
      new CrmRecordsCommand(
        {
          type: 'MergeRecords',
          hubId: token.hubId,
          objectType,
          primaryObjectId,
          objectIdToMerge,
          source: sourceOf(token),
        },
        ctx,
      ),
    );
  }

  @Post(':objectType/gdpr-delete')
  @Authenticated({ by: 'bearer', scopes: recordScopesOf('write') })
  @HttpCode(204)
  @ApiOperation({
    summary:
      'Permanently delete a record (GDPR): its history is removed from the store, its values from every read model',
  })
  @WireResponse(204)
  async gdprDelete(
    @Param('objectType') objectType: string,
    @Body() body: GdprDeleteDto,
    @Token() token: AccessTokenClaims,
    @Ctx() ctx: CommandContext,
  ): Promise<void> {
    this.typeOf(token, objectType);
    const { objectId } = body;
    const idProperty = idPropertyOf(body.idProperty);
    await this.commandBus.execute(
      new CrmRecordsCommand(
        {
          type: 'PurgeRecord',
          hubId: token.hubId,
          objectType,
          recordId: objectId,
          ...(idProperty !== undefined ? { idProperty } : {}),
          source: sourceOf(token),
        },
        ctx,
      ),
    );
  }

  @Post(':objectType/batch/read')
  @Authenticated({ by: 'bearer', scopes: recordScopesOf('read') })
  @ApiOperation({ summary: 'Read a batch of records: 200, or 207 with `errors` for ids not found (2026-09: 200)' })
  @WireResponse(200, RECORD_BATCH_SCHEMA, { description: 'BatchResponseSimplePublicObject' })
  @WireResponse(207, RECORD_BATCH_SCHEMA, { description: 'BatchResponseSimplePublicObjectWithErrors' })
  @ApiQuery({ name: 'archived', required: false, type: Boolean })
  async batchRead(
    @Param('objectType') objectType: string,
    @Query() query: QueryParams,
    @Body() body: BatchReadDto,
    @Token() token: AccessTokenClaims,
    @RouteVersion() version: RecordsVersion,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<RecordBatchView> {
    const type = this.typeOf(token, objectType);
    const startedAt = this.clock.now();
    const archived = parseBoolean(query.archived, 'archived');
    const read = {
      ids: body.inputs.map((i) => i.id),
      properties: namesOf(body.properties),
      propertiesWithHistory: namesOf(body.propertiesWithHistory),
      idProperty: idPropertyOf(body.idProperty),
    };
    const found: RecordView[] = [];
    const missing: string[] = [];
    for (const raw of new Set(read.ids)) {
      const id = this.idOf(token.hubId, type, raw, read.idProperty, archived);
      const view =
        id === null
          ? null
          : this.queries.get(
              token.hubId,
              type.objectTypeId,
              id,
              archived,
              read.properties ? { properties: read.properties } : {},
            );
      if (view) found.push(view);
      else missing.push(raw);
    }
    const results = read.propertiesWithHistory
      ? await this.withHistory(token.hubId, type, found, read.propertiesWithHistory)
      : found;
    const answer: RecordBatchView = {
      status: 'COMPLETE',
      results,
      startedAt: new Date(startedAt).toISOString(),
      completedAt: new Date(this.clock.now()).toISOString(),
    };
    if (missing.length > 0) {
      const error: StandardErrorView = {
        ...standardError(recordsNotFoundInBatch(type.objectTypeId), 0, {}),
        context: { ids: missing },
      };
      answer.errors = [error];
      answer.numErrors = 1;
    }
    void reply.status(batchStatus(answer, 200, version));
    return answer;
  }

  @Post(':objectType/batch/create')
  @Authenticated({ by: 'bearer', scopes: recordScopesOf('write') })
  @ApiOperation({ summary: 'Create a batch of records (at most 100): 201, or 207 with `errors` (2026-09: 201)' })
  @WireResponse(201, RECORD_BATCH_SCHEMA, { description: 'BatchResponseSimplePublicObject' })
  @WireResponse(207, RECORD_BATCH_SCHEMA, { description: 'BatchResponseSimplePublicObjectWithErrors' })
  async batchCreate(
    @Param('objectType') objectType: string,
    @Body() body: BatchCreateDto,
    @Token() token: AccessTokenClaims,
    @Ctx() ctx: CommandContext,
    @RouteVersion() version: RecordsVersion,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<RecordBatchView> {
    this.typeOf(token, objectType);
    const inputs = body.inputs.map((input) => ({
      properties: propertyStrings(input.properties),
      ...associationsOf(input),
    }));
    const answer = await this.commandBus.execute(
      new CrmRecordsCommand(
        { type: 'BatchCreateRecords', hubId: token.hubId, objectType, inputs, source: sourceOf(token) },
        ctx,
      ),
    );
    void reply.status(batchStatus(answer, 201, version));
    return answer;
  }

  @Post(':objectType/batch/update')
  @Authenticated({ by: 'bearer', scopes: recordScopesOf('write') })
  @ApiOperation({ summary: 'Update a batch of records (at most 100): 200, or 207 with `errors` (2026-09: 200)' })
  @WireResponse(200, RECORD_BATCH_SCHEMA, { description: 'BatchResponseSimplePublicObject' })
  @WireResponse(207, RECORD_BATCH_SCHEMA, { description: 'BatchResponseSimplePublicObjectWithErrors' })
  async batchUpdate(
    @Param('objectType') objectType: string,
    @Body() body: BatchUpdateDto,
    @Token() token: AccessTokenClaims,
    @Ctx() ctx: CommandContext,
    @RouteVersion() version: RecordsVersion,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<RecordBatchView> {
    this.typeOf(token, objectType);
    const inputs = body.inputs.map((input) => ({
      id: input.id,
      ...(idPropertyOf(input.idProperty) ? { idProperty: input.idProperty } : {}),
      properties: propertyStrings(input.properties),
    }));
    const answer = await this.commandBus.execute(
      new CrmRecordsCommand(
        { type: 'BatchUpdateRecords', hubId: token.hubId, objectType, inputs, source: sourceOf(token) },
        ctx,
      ),
    );
    void reply.status(batchStatus(answer, 200, version));
    return answer;
  }

  @Post(':objectType/batch/upsert')
  @Authenticated({ by: 'bearer', scopes: recordScopesOf('write') })
  @ApiOperation({ summary: 'Create or update a batch of records by a unique idProperty: 200, or 207 with `errors`' })
  @WireResponse(200, UPSERT_BATCH_SCHEMA, { description: 'BatchResponseSimplePublicUpsertObject' })
  @WireResponse(207, UPSERT_BATCH_SCHEMA, { description: 'BatchResponseSimplePublicUpsertObjectWithErrors' })
  async batchUpsert(
    @Param('objectType') objectType: string,
    @Body() body: BatchUpsertDto,
    @Token() token: AccessTokenClaims,
    @Ctx() ctx: CommandContext,
    @RouteVersion() version: RecordsVersion,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<RecordBatchView> {
    this.typeOf(token, objectType);
    const inputs = body.inputs.map((input) => ({
      id: input.id,
      idProperty: input.idProperty,
      properties: propertyStrings(input.properties),
    }));
    const answer = await this.commandBus.execute(
      new CrmRecordsCommand(
        { type: 'BatchUpsertRecords', hubId: token.hubId, objectType, inputs, source: sourceOf(token) },
        ctx,
      ),
    );
    void reply.status(batchStatus(answer, 200, version));
    return answer;
  }

  @Post(':objectType/batch/archive')
  @Authenticated({ by: 'bearer', scopes: recordScopesOf('write') })
  @HttpCode(204)
  @ApiOperation({ summary: 'Archive a batch of records (at most 100; 204 whatever their state)' })
  @WireResponse(204)
  async batchArchive(
    @Param('objectType') objectType: string,
    @Body() body: BatchArchiveDto,
    @Token() token: AccessTokenClaims,
    @Ctx() ctx: CommandContext,
  ): Promise<void> {
    this.typeOf(token, objectType);
    const inputs = body.inputs.map(({ id }) => ({ id }));
    await this.commandBus.execute(
      new CrmRecordsCommand(
        { type: 'BatchArchiveRecords', hubId: token.hubId, objectType, inputs, source: sourceOf(token) },
        ctx,
      ),
    );
  }

  /** The path's object type (its scopes were checked by the route's rule, `recordScopesOf`). */
  private typeOf(token: AccessTokenClaims, raw: string): RecordType {
    return this.schema.resolve(token.hubId, parseSegment(raw, 'objectType'));
  }

  /** A read's record: by numeric id, or by the value of a unique `idProperty`. */
  private idOf(hubId: number, type: RecordType, raw: string, idProperty: string | undefined, archived: boolean) {
    if (idProperty === undefined || idProperty === 'hs_object_id') return parseRecordId(raw);
    if (!this.schema.rules(hubId, type).get(idProperty)?.unique) throw notAUniqueProperty(idProperty);
    return this.queries.idBy(hubId, type.objectTypeId, idProperty, raw, archived);
  }

  /**
   * Hook for associations: `associations=companies,deals` on a read adds each record's associated
   * ids per asked type, as the associations module answers (types the token may not read, or
   * unknown, are left out, as HubSpot does); a type with none is not shown.
   */
  private withAssociations(
    token: AccessTokenClaims,
    type: RecordType,
    views: RecordView[],
    names: readonly string[] | undefined,
  ): RecordView[] {
    if (!names) return views;
    const targets = names.flatMap((name) => {
      try {
        const to = this.schema.resolve(token.hubId, name);
        return recordScopes(to.family, 'read').some((s) => token.scopes.includes(s)) ? [{ name, to }] : [];
      } catch {
        return [];
      }
    });
    return views.map((view) => {
      const associations: NonNullable<RecordView['associations']> = {};
      for (const { name, to } of targets) {
        const results = this.associations.associatedIds(
          token.hubId,
          type.objectTypeId,
          Number(view.id),
          to.objectTypeId,
        );
        if (results.length > 0) associations[name] = { results };
      }
      return Object.keys(associations).length > 0 ? { ...view, associations } : view;
    });
  }

  private async withHistory(
    hubId: number,
    type: RecordType,
    views: RecordView[],
    names: readonly string[],
  ): Promise<RecordView[]> {
    return Promise.all(
      views.map(async (v) => ({
        ...v,
        propertiesWithHistory: await this.history.of(hubId, type.objectTypeId, Number(v.id), names),
      })),
    );
  }
}

/** A create's `associations`, as the command takes them. */
function associationsOf(input: RecordCreateDto): { associations?: CreateAssociation[] } {
  if (!input.associations || input.associations.length === 0) return {};
  return {
    associations: input.associations.map((a) => ({
      toId: a.to.id,
      types: a.types.map((t) => ({ category: t.associationCategory, typeId: t.associationTypeId })),
    })),
  };
}

const sourceOf = (token: AccessTokenClaims): WriteSource => ({ appId: token.appId, userId: token.userId });

/** A batch's status: `ok` when every input passed, 207 with `errors` otherwise; 2026-09 answers `ok` either way. */
function batchStatus(answer: { errors?: unknown[] }, ok: 200 | 201, version: RecordsVersion): number {
  if (version === '2026-09') return ok;
  return answer.errors ? 207 : ok;
}

/**
 * `paging.next.link`: the same request with the next cursor, absolute on the base the client
 * called (its Host and scheme), so following it verbatim reads the next page.
 */
function nextLink(request: FastifyRequest, after: string): string {
  const url = new URL(request.url, `${request.protocol}://${request.headers.host ?? 'localhost'}`);
  url.searchParams.set('after', after);
  return url.toString();
}
