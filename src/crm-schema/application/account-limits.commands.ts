import { Command } from '@nestjs/cqrs';
import type { CommandContext } from '../../platform/events/envelope';
import type { AccountLimitsCommand } from '../domain/account-limits.decider';
import type { AccountLimitsView } from './limits.queries';
import type { PropertyBatchView, PropertyGroupView, PropertyView } from './property.views';
import type {
  AssociationLabelTypesView,
  AssociationView,
  ObjectSchemaView,
  ObjectTypeDefinitionView,
} from './schema.views';

/**
 * What each command of one account's limits stream answers. The decider's union
 * (`AccountLimitsCommand`, in domain/) names the commands; this table only adds their answers, and
 * the compiler refuses a command missing here.
 */
export interface AccountLimitsAnswers {
  /** POST /crm/v3/properties/{objectType}; fieldType calculation_equation makes a calculated property. */
  CreateProperty: PropertyView;
  /** PATCH /crm/v3/properties/{objectType}/{propertyName}. */
  UpdateProperty: PropertyView;
  /** DELETE /crm/v3/properties/{objectType}/{propertyName}: its slot is free again; twice is a 404. */
  ArchiveProperty: void;
  /** POST .../batch/create: the inputs that pass in one append, the others reported. */
  BatchCreateProperties: PropertyBatchView;
  /** POST .../batch/archive: the active ones of the named properties, in one append. */
  BatchArchiveProperties: void;
  /** POST /crm/v3/properties/{objectType}/groups. */
  CreatePropertyGroup: PropertyGroupView;
  /** PATCH /crm/v3/properties/{objectType}/groups/{groupName}. */
  UpdatePropertyGroup: PropertyGroupView;
  /** DELETE /crm/v3/properties/{objectType}/groups/{groupName}: only an empty group of the account's own. */
  ArchivePropertyGroup: void;
  /** POST /crm/v3/schemas: the custom object type with its properties and associations, in one append. */
  CreateCustomObjectSchema: ObjectSchemaView;
  /** PATCH /crm/v3/schemas/{objectType}: the ObjectTypeDefinition. */
  UpdateCustomObjectSchema: ObjectTypeDefinitionView;
  /** DELETE /crm/v3/schemas/{objectType}: archived, its slot free. */
  ArchiveCustomObjectSchema: void;
  /** DELETE /crm/v3/schemas/{objectType}?archived=true: an archived schema gone for good. */
  PurgeCustomObjectSchema: void;
  /** POST /crm/v3/schemas/{objectType}/associations. */
  CreateAssociationDefinition: AssociationView;
  /** DELETE /crm/v3/schemas/{objectType}/associations/{associationIdentifier}. */
  DeleteAssociationDefinition: void;
  /** POST /crm/v4/associations/{from}/{to}/labels: the label's two types (one per direction). */
  CreateAssociationLabel: AssociationLabelTypesView;
  /** PUT /crm/v4/associations/{from}/{to}/labels. */
  UpdateAssociationLabel: void;
  /** DELETE /crm/v4/associations/{from}/{to}/labels/{associationTypeId}. */
  ArchiveAssociationLabel: void;
  /** PUT /admin/v1/accounts/{hubId}/limits. */
  OverrideAccountLimits: AccountLimitsView;
}

type AccountLimitsCommandType = AccountLimitsCommand['type'] & keyof AccountLimitsAnswers;

/** The decider's command as the edge knows it: everything but the facts AccountLimitsHandler adds. */
export type AccountLimitsInput = AccountLimitsCommand extends infer C
  ? C extends { facts: unknown }
    ? Omit<C, 'facts'>
    : never
  : never;

/**
 * Every command of one account's limits stream, as the CommandBus carries it: one class for the
 * aggregate, carrying the decider's command (`{ type: 'CreateProperty', objectType, property }`) as
 * it is, with the account, who asks and the request's context. AccountLimitsHandler adds the facts
 * (tier, ceilings, time) and hands the command to the decider; `execute` answers the command's entry
 * of AccountLimitsAnswers. A new command is a new member of the decider's union and a line above,
 * not a new class.
 */
export class AccountLimitsBusCommand<T extends AccountLimitsCommandType = AccountLimitsCommandType> extends Command<
  AccountLimitsAnswers[T]
> {
  constructor(
    readonly hubId: number,
    readonly userId: number | null,
    readonly command: AccountLimitsInput & { type: T },
    readonly context: CommandContext,
  ) {
    super();
  }
}

// Every command of the decider has its answer above, and nothing else is listed.
type Exactly<A, B> = [A] extends [B] ? ([B] extends [A] ? true : never) : never;
const _answersCoverTheDecider: Exactly<AccountLimitsCommand['type'], keyof AccountLimitsAnswers> = true;
void _answersCoverTheDecider;
