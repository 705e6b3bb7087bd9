import { Controller, Delete, Get, HttpCode, Param, Post, Put, Query, Res } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiBody, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { LimitsQueries, scopeFamilyOf } from '../../crm-schema';
import { type AccessTokenClaims, Token } from '../../oauth';
import { Authenticated, type RouteFacts } from '../../platform/http/authentication';
import { CLOCK, type Clock } from '../../platform/clock';
import { toErrorBody } from '../../platform/errors/hubspot-error';
import type { CommandContext } from '../../platform/events/envelope';
import { type ApiVersion, RouteVersion, versionedPaths } from '../../platform/http/api-versions';
import { Ctx } from '../../platform/http/request-context';
import { WireResponse } from '../../platform/http/wire-response';
import { Inject } from '@nestjs/common';
import {
  type BatchOutcome,
  CrmAssociationsCommand,
  type DefaultAssociationView,
  type LabelsBetweenView,
} from '../application/crm-associations.handler';
import { AssociationsQueries, type AssociatedObjectView } from '../crm-associations.queries';
import { recordsNotFound } from '../domain/association-errors';

import {
  batchReadOf,
  defaultPostOf,
  multiArchiveOf,
  multiPostOf,
  parsePaging,
  parsePathRecordId,
  typeSpecsOf,
} from './association-input';
import { AssociationBody } from './association-body';
import {
  AssociationSpecDto,
  AssociationSpecListDto,
  BatchAssociationFetchDto,
  BatchAssociationMultiArchiveDto,
  BatchAssociationMultiPostDto,
  BatchDefaultAssociationPostDto,
} from './association.dto';
import {
  ASSOCIATIONS_PAGE_SCHEMA,
  DEFAULT_BATCH_SCHEMA,
  LABELS_BATCH_SCHEMA,
  LABELS_BETWEEN_SCHEMA,
  LABELS_SCHEMA,
  READ_BATCH_SCHEMA,
  VOID_BATCH_SCHEMA,
} from './wire-schemas';

/**
 * HubSpot's undated v4 paths are served as the service's `v3` family (its name for the undated
 * versions); the dated ones as 2026-03 and 2026-09.
 */
const OBJECTS_PATHS = {
  v3: 'crm/v4/objects',
  '2026-03': 'crm/objects/2026-03',
  '2026-09': 'crm/objects/2026-09',
} as const satisfies Partial<Record<ApiVersion, string>>;
const ASSOCIATIONS_PATHS = {
  v3: ['crm/v4/associations', 'crm/associations/v4'],
  '2026-03': 'crm/associations/2026-03',
  '2026-09': 'crm/associations/2026-09',
} as const satisfies Partial<Record<ApiVersion, string | readonly string[]>>;
type Version = 'v3' | '2026-03' | '2026-09';

/** The records scopes of an object type path segment ("any of"), as the records API takes them. */
function scopesOf(raw: string, access: 'read' | 'write'): string[] {
  const family = scopeFamilyOf(raw);
  if (family === 'tickets') {
    return ['tickets', `crm.objects.tickets.sensitive.${access}`, `crm.objects.tickets.highly_sensitive.${access}`];
  }
  return [
    `crm.objects.${family}.${access}`,
    `crm.objects.${family}.sensitive.${access}.v2`,
    `crm.objects.${family}.highly_sensitive.${access}.v2`,
  ];
}

/** The route's scope rule: the records scopes of its from-object type. */
const associationScopes =
  (access: 'read' | 'write') =>
  (route: RouteFacts): readonly string[] =>
    scopesOf(route.params.objectType ?? route.params.fromObjectType ?? '', access);

interface BatchBody<R> {
  status: 'COMPLETE';
  results: R[];
  errors?: ReturnType<typeof standardErrors>;
  numErrors?: number;
  startedAt: string;
  completedAt: string;
}

function standardErrors(outcome: BatchOutcome<unknown>) {
  return outcome.refused.map(({ index, error }) => {
    const body = toErrorBody(error, '');
    return {
      status: 'error',
      category: body.category,
      message: body.message,
      context: { ...(body.context ?? {}), inputIndex: [String(index)] },
      errors: body.errors ?? [],
      links: {},
    };
  });
}

/**
 * Associations v4 between the token's account's records (contacts, companies, deals, tickets):
 * create with types, the default type, list, remove, batches; HubSpot's type ids and labels. Reads
 * from the `crm-associations` read model.
 */
@ApiTags('CRM associations')
@Controller()
export class AssociationsController {
  constructor(
    private readonly commandBus: CommandBus,
    private readonly queries: AssociationsQueries,
    private readonly limits: LimitsQueries,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  /** The path's object type (the guard has checked the token's scopes for the from-type). */
  private typeOf(token: AccessTokenClaims, raw: string, _access: 'read' | 'write'): string {
    return this.limits.resolve(token.hubId, raw).objectTypeId;
  }

  private scope(token: AccessTokenClaims, from: string, to: string, access: 'read' | 'write') {
    return {
      hubId: token.hubId,
      fromType: this.typeOf(token, from, access),
      toType: this.typeOf(token, to, access),
      appId: token.appId,
      userId: token.userId,
    };
  }

  private batchBody<R>(startedAt: number, outcome: BatchOutcome<R>): BatchBody<R> {
    const errors = standardErrors(outcome);
    return {
      status: 'COMPLETE',
      results: outcome.results,
      ...(errors.length > 0 ? { errors, numErrors: errors.length } : {}),
      startedAt: new Date(startedAt).toISOString(),
      completedAt: new Date(this.clock.now()).toISOString(),
    };
  }

  @Get(
    versionedPaths({ v3: OBJECTS_PATHS.v3, '2026-03': OBJECTS_PATHS['2026-03'] }).map(
      (p) => `${p}/:objectType/:objectId/associations/:toObjectType`,
    ),
  )
  @Authenticated({ by: 'bearer', scopes: associationScopes('read') })
  @ApiOperation({ summary: 'A record’s associations to records of one type (limit at most 500, after)' })
  @WireResponse(200, ASSOCIATIONS_PAGE_SCHEMA, {
    description: 'CollectionResponseMultiAssociatedObjectWithLabelForwardPaging',
  })
  list(
    @Param('objectType') objectType: string,
    @Param('objectId') objectId: string,
    @Param('toObjectType') toObjectType: string,
    @Query() query: Record<string, unknown>,
    @Token() token: AccessTokenClaims,
  ): { results: AssociatedObjectView[]; paging?: { next: { after: string } } } {
    const s = this.scope(token, objectType, toObjectType, 'read');
    const id = parsePathRecordId(objectId, 'objectId');
    const { limit, after } = parsePaging(query);
    const page = this.queries.page(s.hubId, s.fromType, id, s.toType, after, limit);
    return page.next === null
      ? { results: page.results }
      : { results: page.results, paging: { next: { after: String(page.next) } } };
  }

  @Put(
    versionedPaths(OBJECTS_PATHS).map(
      (p) => `${p}/:objectType/:objectId/associations/default/:toObjectType/:toObjectId`,
    ),
  )
  @Authenticated({ by: 'bearer', scopes: associationScopes('write') })
  @HttpCode(200)
  @ApiOperation({ summary: 'Associate two records with the pair’s default (unlabeled) type' })
  @WireResponse(200, DEFAULT_BATCH_SCHEMA, { description: 'BatchResponsePublicDefaultAssociation' })
  async createDefault(
    @Param('objectType') objectType: string,
    @Param('objectId') objectId: string,
    @Param('toObjectType') toObjectType: string,
    @Param('toObjectId') toObjectId: string,
    @Token() token: AccessTokenClaims,
    @Ctx() ctx: CommandContext,
  ): Promise<BatchBody<DefaultAssociationView>> {
    const startedAt = this.clock.now();
    const s = this.scope(token, objectType, toObjectType, 'write');
    const input = {
      fromId: parsePathRecordId(objectId, 'fromObjectId'),
      toId: parsePathRecordId(toObjectId, 'toObjectId'),
    };
    const outcome = await this.commandBus.execute(
      new CrmAssociationsCommand({ type: 'CreateDefaultAssociations', ...s, inputs: [input] }, ctx),
    );
    const refused = outcome.refused[0];
    if (refused) throw refused.error;
    return this.batchBody(startedAt, outcome);
  }

  @Put(versionedPaths(OBJECTS_PATHS).map((p) => `${p}/:objectType/:objectId/associations/:toObjectType/:toObjectId`))
  @Authenticated({ by: 'bearer', scopes: associationScopes('write') })
  @HttpCode(201)
  @ApiOperation({ summary: 'Associate two records with the given types (labels)' })
  @WireResponse(201, LABELS_BETWEEN_SCHEMA, { description: 'LabelsBetweenObjectPair' })
  @ApiBody({ type: [AssociationSpecDto] })
  create(
    @Param('objectType') objectType: string,
    @Param('objectId') objectId: string,
    @Param('toObjectType') toObjectType: string,
    @Param('toObjectId') toObjectId: string,
    @AssociationBody(AssociationSpecListDto) body: AssociationSpecDto[],
    @Token() token: AccessTokenClaims,
    @Ctx() ctx: CommandContext,
  ): Promise<LabelsBetweenView> {
    const s = this.scope(token, objectType, toObjectType, 'write');
    const fromId = parsePathRecordId(objectId, 'objectId');
    const toId = parsePathRecordId(toObjectId, 'toObjectId');
    const types = typeSpecsOf(body);
    return this.commandBus.execute(
      new CrmAssociationsCommand({ type: 'CreateAssociation', ...s, input: { fromId, toId, types } }, ctx),
    );
  }

  @Delete(versionedPaths(OBJECTS_PATHS).map((p) => `${p}/:objectType/:objectId/associations/:toObjectType/:toObjectId`))
  @Authenticated({ by: 'bearer', scopes: associationScopes('write') })
  @HttpCode(204)
  @ApiOperation({ summary: 'Remove every association between two records' })
  @WireResponse(204)
  async archive(
    @Param('objectType') objectType: string,
    @Param('objectId') objectId: string,
    @Param('toObjectType') toObjectType: string,
    @Param('toObjectId') toObjectId: string,
    @Token() token: AccessTokenClaims,
    @Ctx() ctx: CommandContext,
  ): Promise<void> {
    const s = this.scope(token, objectType, toObjectType, 'write');
    const fromId = parsePathRecordId(objectId, 'objectId');
    const toId = parsePathRecordId(toObjectId, 'toObjectId');
    await this.commandBus.execute(
      new CrmAssociationsCommand({ type: 'ArchiveAssociations', ...s, inputs: [{ fromId, toIds: [toId] }] }, ctx),
    );
  }

  @Post(versionedPaths(ASSOCIATIONS_PATHS).map((p) => `${p}/:fromObjectType/:toObjectType/batch/create`))
  @Authenticated({ by: 'bearer', scopes: associationScopes('write') })
  @ApiOperation({ summary: 'Create associations with types (201, or 207 with errors; 2026-09: 200)' })
  @WireResponse(201, LABELS_BATCH_SCHEMA, { description: 'BatchResponseLabelsBetweenObjectPair' })
  @WireResponse(207, LABELS_BATCH_SCHEMA, { description: 'BatchResponseLabelsBetweenObjectPairWithErrors' })
  @WireResponse(200, LABELS_BATCH_SCHEMA, { description: 'BatchResponseLabelsBetweenObjectPair (2026-09)' })
  @ApiBody({ type: BatchAssociationMultiPostDto })
  async batchCreate(
    @Param('fromObjectType') from: string,
    @Param('toObjectType') to: string,
    @AssociationBody(BatchAssociationMultiPostDto) body: BatchAssociationMultiPostDto,
    @Token() token: AccessTokenClaims,
    @Ctx() ctx: CommandContext,
    @RouteVersion() version: Version,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<BatchBody<LabelsBetweenView>> {
    const startedAt = this.clock.now();
    const s = this.scope(token, from, to, 'write');
    const inputs = multiPostOf(body);
    const outcome = await this.commandBus.execute(
      new CrmAssociationsCommand({ type: 'BatchCreateAssociations', ...s, inputs }, ctx),
    );
    const answer = this.batchBody(startedAt, outcome);
    void reply.status(version === '2026-09' ? 200 : answer.errors ? 207 : 201);
    return answer;
  }

  @Post(versionedPaths(ASSOCIATIONS_PATHS).map((p) => `${p}/:fromObjectType/:toObjectType/batch/associate/default`))
  @Authenticated({ by: 'bearer', scopes: associationScopes('write') })
  @HttpCode(200)
  @ApiOperation({ summary: 'Associate pairs of records with the default type' })
  @WireResponse(200, DEFAULT_BATCH_SCHEMA, { description: 'BatchResponsePublicDefaultAssociation' })
  @ApiBody({ type: BatchDefaultAssociationPostDto })
  async batchCreateDefault(
    @Param('fromObjectType') from: string,
    @Param('toObjectType') to: string,
    @AssociationBody(BatchDefaultAssociationPostDto) body: BatchDefaultAssociationPostDto,
    @Token() token: AccessTokenClaims,
    @Ctx() ctx: CommandContext,
  ): Promise<BatchBody<DefaultAssociationView>> {
    const startedAt = this.clock.now();
    const s = this.scope(token, from, to, 'write');
    const inputs = defaultPostOf(body);
    const outcome = await this.commandBus.execute(
      new CrmAssociationsCommand({ type: 'CreateDefaultAssociations', ...s, inputs }, ctx),
    );
    return this.batchBody(startedAt, outcome);
  }

  @Post(versionedPaths(ASSOCIATIONS_PATHS).map((p) => `${p}/:fromObjectType/:toObjectType/batch/read`))
  @Authenticated({ by: 'bearer', scopes: associationScopes('read') })
  @ApiOperation({ summary: 'Read the associations of up to 1,000 records (200, or 207 with errors; 2026-09: 200)' })
  @WireResponse(200, READ_BATCH_SCHEMA, { description: 'BatchResponsePublicAssociationMultiWithLabel' })
  @WireResponse(207, READ_BATCH_SCHEMA, { description: 'BatchResponsePublicAssociationMultiWithLabelWithErrors' })
  @ApiBody({ type: BatchAssociationFetchDto })
  batchRead(
    @Param('fromObjectType') from: string,
    @Param('toObjectType') to: string,
    @AssociationBody(BatchAssociationFetchDto) body: BatchAssociationFetchDto,
    @Token() token: AccessTokenClaims,
    @RouteVersion() version: Version,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    const startedAt = this.clock.now();
    const s = this.scope(token, from, to, 'read');
    const inputs = batchReadOf(body);
    const results: Array<{ from: { id: string }; to: AssociatedObjectView[]; paging?: { next: { after: string } } }> =
      [];
    const missing: string[] = [];
    for (const input of inputs) {
      const known =
        input.fromId !== undefined && this.queries.missing(s.hubId, s.fromType, [input.fromId]).length === 0;
      if (!known) {
        missing.push(input.id);
        continue;
      }
      const page = this.queries.page(s.hubId, s.fromType, input.fromId!, s.toType, input.after, 500);
      results.push({
        from: { id: input.id },
        to: page.results,
        ...(page.next !== null ? { paging: { next: { after: String(page.next) } } } : {}),
      });
    }
    const refused = missing.length > 0 ? [{ index: 0, error: recordsNotFound(s.fromType, missing) }] : [];
    const answer = this.batchBody(startedAt, { results, refused });
    void reply.status(version !== '2026-09' && answer.errors ? 207 : 200);
    return answer;
  }

  @Post(versionedPaths(ASSOCIATIONS_PATHS).map((p) => `${p}/:fromObjectType/:toObjectType/batch/archive`))
  @Authenticated({ by: 'bearer', scopes: associationScopes('write') })
  @ApiOperation({ summary: 'Remove every association of the given pairs (v4: 204; dated: 200)' })
  @WireResponse(204)
  @WireResponse(200, VOID_BATCH_SCHEMA, { description: 'BatchResponse (2026-03), BatchResponseVoid (2026-09)' })
  @ApiBody({ type: BatchAssociationMultiArchiveDto })
  async batchArchive(
    @Param('fromObjectType') from: string,
    @Param('toObjectType') to: string,
    @AssociationBody(BatchAssociationMultiArchiveDto) body: BatchAssociationMultiArchiveDto,
    @Token() token: AccessTokenClaims,
    @Ctx() ctx: CommandContext,
    @RouteVersion() version: Version,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<BatchBody<never> | undefined> {
    const startedAt = this.clock.now();
    const s = this.scope(token, from, to, 'write');
    const inputs = multiArchiveOf(body);
    const outcome = await this.commandBus.execute(
      new CrmAssociationsCommand({ type: 'ArchiveAssociations', ...s, inputs }, ctx),
    );
    return this.voidAnswer(startedAt, outcome, version, reply);
  }

  @Post(versionedPaths(ASSOCIATIONS_PATHS).map((p) => `${p}/:fromObjectType/:toObjectType/batch/labels/archive`))
  @Authenticated({ by: 'bearer', scopes: associationScopes('write') })
  @ApiOperation({ summary: 'Remove the given types (labels) from pairs (v4: 204; dated: 200)' })
  @WireResponse(204)
  @WireResponse(200, VOID_BATCH_SCHEMA, { description: 'BatchResponse (2026-03), BatchResponseVoid (2026-09)' })
  @ApiBody({ type: BatchAssociationMultiPostDto })
  async batchArchiveLabels(
    @Param('fromObjectType') from: string,
    @Param('toObjectType') to: string,
    @AssociationBody(BatchAssociationMultiPostDto) body: BatchAssociationMultiPostDto,
    @Token() token: AccessTokenClaims,
    @Ctx() ctx: CommandContext,
    @RouteVersion() version: Version,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<BatchBody<never> | undefined> {
    const startedAt = this.clock.now();
    const s = this.scope(token, from, to, 'write');
    const inputs = multiPostOf(body);
    const outcome = await this.commandBus.execute(
      new CrmAssociationsCommand({ type: 'ArchiveAssociationLabels', ...s, inputs }, ctx),
    );
    return this.voidAnswer(startedAt, outcome, version, reply);
  }

  @Get(versionedPaths(ASSOCIATIONS_PATHS).map((p) => `${p}/:fromObjectType/:toObjectType/labels`))
  @Authenticated({ by: 'bearer', scopes: associationScopes('read') })
  @ApiOperation({ summary: 'The association types (labels) between two object types' })
  @WireResponse(200, LABELS_SCHEMA, { description: 'CollectionResponseAssociationSpecWithLabelNoPaging' })
  labels(@Param('fromObjectType') from: string, @Param('toObjectType') to: string, @Token() token: AccessTokenClaims) {
    const s = this.scope(token, from, to, 'read');
    return {
      results: this.queries
        .catalogueOf(s.hubId)
        .between(s.fromType, s.toType)
        .map((t) => ({
          category: t.category,
          typeId: t.typeId,
          ...(t.label !== null ? { label: t.label } : {}),
        })),
    };
  }

  /** v4 answers 204 (errors swallowed as HubSpot does); the dated versions a BatchResponse. */
  private voidAnswer(
    startedAt: number,
    outcome: BatchOutcome<never>,
    version: Version,
    reply: FastifyReply,
  ): BatchBody<never> | undefined {
    if (version === 'v3') {
      void reply.status(204);
      return undefined;
    }
    void reply.status(200);
    return this.batchBody(startedAt, outcome);
  }
}
