import type { Decider } from '../../platform/commands/decider';
import { HubSpotError } from '../../platform/errors/hubspot-error';
import {
  AccountLimitsState,
  evolveAccountLimits,
  findSchema,
  initialAccountLimitsState,
  propertyOf,
  SchemaSlot,
  usageOf,
} from './account-limits.state';
import { checkCeiling, CommandFacts, resolveActive } from './ceiling-check';
import { mergeOverrides } from './ceilings';
import { invalidInput } from './limit-errors';
import { AssociationDefinition, LimitOverrides, LimitsEvent, LimitsEventType } from './limits-events';
import { fullyQualifiedNameOf, isHubSpotDefinedProperty } from './object-types';
import { checkUniqueValueCeiling } from './property-checks';
import {
  type BatchRefusal,
  decidePropertyCommand,
  decidePropertyCreation,
  emptyBatch,
  planBatchCreate,
  PropertyCommand,
} from './property-decisions';
import type { PropertyInput } from './property-rules';
import { normalizeSchema, SchemaInput } from './schema-rules';
import { AssociationInput, decideCreateAssociation, decideDeleteAssociation } from './association-definitions';
import { decideUpdateSchema, SchemaPatchInput } from './schema-patch';
import {
  type AssociationLabelChange,
  type AssociationLabelInput,
  decideArchiveAssociationLabel,
  decideCreateAssociationLabel,
  decideUpdateAssociationLabel,
} from './association-labels';

export type { CommandFacts } from './ceiling-check';

export type AccountLimitsCommand =
  | { type: 'CreateProperty'; facts: CommandFacts; objectType: string; property: PropertyInput }
  | { type: 'ArchiveProperty'; facts: CommandFacts; objectType: string; name: string }
  | { type: 'CreateCustomObjectSchema'; facts: CommandFacts; schema: SchemaInput }
  | { type: 'ArchiveCustomObjectSchema'; facts: CommandFacts; objectType: string }
  | { type: 'PurgeCustomObjectSchema'; facts: CommandFacts; objectType: string }
  | { type: 'OverrideAccountLimits'; facts: CommandFacts; overrides: LimitOverrides }
  | { type: 'UpdateCustomObjectSchema'; facts: CommandFacts; objectType: string; patch: SchemaPatchInput }
  | { type: 'CreateAssociationDefinition'; facts: CommandFacts; objectType: string; association: AssociationInput }
  | { type: 'DeleteAssociationDefinition'; facts: CommandFacts; objectType: string; associationIdentifier: string }
  | { type: 'CreateAssociationLabel'; facts: CommandFacts; label: AssociationLabelInput }
  | { type: 'UpdateAssociationLabel'; facts: CommandFacts; change: AssociationLabelChange }
  | {
      type: 'ArchiveAssociationLabel';
      facts: CommandFacts;
      ref: { fromObjectType: string; toObjectType: string; associationTypeId: number };
    }
  | PropertyCommand;

type CommandOf<T extends AccountLimitsCommand['type']> = Extract<AccountLimitsCommand, { type: T }>;

function decideCreateProperty(cmd: CommandOf<'CreateProperty'>, state: AccountLimitsState): LimitsEvent[] {
  const resolved = resolveActive(state, cmd.objectType, cmd.facts.hubId);
  return [decidePropertyCreation(state, resolved, cmd.property, cmd.facts, emptyBatch())];
}

function decideArchiveProperty(cmd: CommandOf<'ArchiveProperty'>, state: AccountLimitsState): LimitsEvent[] {
  const resolved = resolveActive(state, cmd.objectType, cmd.facts.hubId);
  if (isHubSpotDefinedProperty(resolved, cmd.name)) {
    const message = `Property '${cmd.name}' is defined by HubSpot and cannot be archived.`;
    throw HubSpotError.validation(
      message,
      [{ message, in: 'propertyName', code: 'NOT_ARCHIVABLE' }],
      'PROPERTY_NOT_ARCHIVABLE',
    );
  }
  // An archived property is not in the state any more: archiving it again is a 404, as reading it is.
  if (!propertyOf(state, resolved.objectTypeId, cmd.name))
    throw HubSpotError.notFound(`Property ${cmd.name} does not exist`);
  return [
    {
      type: LimitsEventType.PropertyArchived,
      data: { hubId: cmd.facts.hubId, objectTypeId: resolved.objectTypeId, name: cmd.name, archivedAt: cmd.facts.now },
    },
  ];
}

/** The schema and its properties in one decision: the properties follow as PropertyCreated events. */
function decideCreateSchema(cmd: CommandOf<'CreateCustomObjectSchema'>, state: AccountLimitsState): LimitsEvent[] {
  const { facts } = cmd;
  const { schema, errors } = normalizeSchema(cmd.schema, facts.hubId, Object.values(state.schemas));
  if (errors.length > 0) throw invalidInput(errors);

  const name = cmd.schema.name;
  const clash = Object.values(state.schemas).find((s) => s.name.toLowerCase() === name.toLowerCase());
  if (clash) {
    throw HubSpotError.conflict(
      clash.archived
        ? `An archived object type named '${clash.name}' (${clash.objectTypeId}) exists; purge it with DELETE /crm/v3/schemas/${clash.objectTypeId}?archived=true before reusing its name.`
        : `An object type named '${clash.name}' already exists (${clash.objectTypeId}).`,
      'OBJECT_TYPE_ALREADY_EXISTS',
    );
  }

  const usage = usageOf(state);
  checkCeiling('customObjectTypes', usage.customObjectTypes, 1, state, facts);
  checkCeiling('customProperties', 0, schema.properties.length, state, facts, ' per object type');
  const unique = schema.properties.filter((p) => p.hasUniqueValue).length;
  if (unique > 0) checkUniqueValueCeiling(0, unique, `2-${state.lastSchemaSeq + 1}`, facts.tier);

  const seq = state.lastSchemaSeq + 1;
  const objectTypeId = `2-${seq}`;
  let associationId = state.lastAssociationId;
  const associations: AssociationDefinition[] = schema.associationTargets.map((to) => ({
    id: String(++associationId),
    fromObjectTypeId: objectTypeId,
    toObjectTypeId: to,
    name: null,
  }));
  return [
    {
      type: LimitsEventType.CustomObjectSchemaCreated,
      data: {
        hubId: facts.hubId,
        objectTypeId,
        id: String(seq),
        name,
        fullyQualifiedName: fullyQualifiedNameOf(facts.hubId, name),
        labels: schema.labels,
        description: cmd.schema.description ?? null,
        primaryDisplayProperty: cmd.schema.primaryDisplayProperty ?? null,
        secondaryDisplayProperties: cmd.schema.secondaryDisplayProperties ?? [],
        searchableProperties: cmd.schema.searchableProperties ?? [],
        requiredProperties: cmd.schema.requiredProperties,
        associations,
        createdUserId: facts.userId,
        createdAt: facts.now,
      },
    },
    ...schema.properties.map((property): LimitsEvent => ({
      type: LimitsEventType.PropertyCreated,
      data: {
        hubId: facts.hubId,
        objectTypeId,
        property,
        calculated: false,
        createdUserId: facts.userId,
        createdAt: facts.now,
      },
    })),
  ];
}

function schemaToDelete(state: AccountLimitsState, objectType: string, hubId: number): SchemaSlot {
  const schema = findSchema(state, objectType, hubId);
  if (!schema) throw HubSpotError.notFound(`Object type ${objectType} not found`);
  return schema;
}

function decideArchiveSchema(cmd: CommandOf<'ArchiveCustomObjectSchema'>, state: AccountLimitsState): LimitsEvent[] {
  const { facts } = cmd;
  const schema = schemaToDelete(state, cmd.objectType, facts.hubId);
  if (schema.archived) return [];
  return [
    {
      type: LimitsEventType.CustomObjectSchemaArchived,
      data: { hubId: facts.hubId, objectTypeId: schema.objectTypeId, archivedAt: facts.now },
    },
  ];
}

/** A hard delete, only of an archived schema: its name can then be used again. */
function decidePurgeSchema(cmd: CommandOf<'PurgeCustomObjectSchema'>, state: AccountLimitsState): LimitsEvent[] {
  const { facts } = cmd;
  const schema = schemaToDelete(state, cmd.objectType, facts.hubId);
  if (!schema.archived) {
    throw HubSpotError.validation(`Object type ${schema.objectTypeId} must be archived before it can be purged.`, [
      { message: 'archive the object type first (DELETE without archived=true)', in: 'archived', code: 'INVALID' },
    ]);
  }
  return [
    {
      type: LimitsEventType.CustomObjectSchemaPurged,
      data: { hubId: facts.hubId, objectTypeId: schema.objectTypeId, purgedAt: facts.now },
    },
  ];
}

function decideOverride(cmd: CommandOf<'OverrideAccountLimits'>, state: AccountLimitsState): LimitsEvent[] {
  const next = mergeOverrides(state.overrides, cmd.overrides);
  if (JSON.stringify(sorted(next)) === JSON.stringify(sorted(state.overrides))) return [];
  return [
    {
      type: LimitsEventType.AccountLimitsOverridden,
      data: { hubId: cmd.facts.hubId, overrides: next, overriddenAt: cmd.facts.now },
    },
  ];
}

const sorted = (o: LimitOverrides) => Object.fromEntries(Object.entries(o).sort(([a], [b]) => a.localeCompare(b)));

export function decideAccountLimits(command: AccountLimitsCommand, state: AccountLimitsState): LimitsEvent[] {
  switch (command.type) {
    case 'CreateProperty':
      return decideCreateProperty(command, state);
    case 'ArchiveProperty':
      return decideArchiveProperty(command, state);
    case 'CreateCustomObjectSchema':
      return decideCreateSchema(command, state);
    case 'ArchiveCustomObjectSchema':
      return decideArchiveSchema(command, state);
    case 'PurgeCustomObjectSchema':
      return decidePurgeSchema(command, state);
    case 'OverrideAccountLimits':
      return decideOverride(command, state);
    case 'UpdateCustomObjectSchema':
      return decideUpdateSchema(command.patch, command.objectType, state, command.facts);
    case 'CreateAssociationDefinition':
      return decideCreateAssociation(command.association, command.objectType, state, command.facts);
    case 'DeleteAssociationDefinition':
      return decideDeleteAssociation(command.associationIdentifier, command.objectType, state, command.facts);
    case 'CreateAssociationLabel':
      return decideCreateAssociationLabel(command.label, state, command.facts);
    case 'UpdateAssociationLabel':
      return decideUpdateAssociationLabel(command.change, state, command.facts);
    case 'ArchiveAssociationLabel':
      return decideArchiveAssociationLabel(command.ref, state, command.facts);
    default:
      return decidePropertyCommand(command, state);
  }
}

/** One account's limits stream: every write of the account, so ceilings count a consistent state. */
export const accountLimitsDecider: Decider<AccountLimitsState, AccountLimitsCommand, LimitsEvent, BatchRefusal> = {
  initialState: initialAccountLimitsState,
  evolve: evolveAccountLimits,
  decide: decideAccountLimits,
  // A batch create is taken in part: the inputs that pass are appended, the others answered.
  plan: (command, state) =>
    command.type === 'BatchCreateProperties'
      ? planBatchCreate(command, state)
      : { events: decideAccountLimits(command, state), rejected: [] },
};
