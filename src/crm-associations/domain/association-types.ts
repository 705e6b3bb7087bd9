/**
 * HubSpot-defined association types between the standard objects, as HubSpot's associations v4
 * documentation lists them (type ids per direction; "Primary" is HubSpot's one label). Each type has
 * its inverse, the same association seen from the other record. Every labeled association also
 * holds the pair's unlabeled type (HubSpot's rule: a label implies the association itself).
 */
export type AssociationCategory = 'HUBSPOT_DEFINED' | 'USER_DEFINED' | 'INTEGRATOR_DEFINED';

export interface AssociationType {
  typeId: number;
  category: AssociationCategory;
  fromObjectTypeId: string;
  toObjectTypeId: string;
  /** null: the pair's unlabeled (default) type. */
  label: string | null;
  inverseTypeId: number;
  /** HubSpot's own limit of associations of this type from one record (Primary: one). */
  maxToObjectIds?: number;
}

const CONTACT = '0-1';
const COMPANY = '0-2';
const DEAL = '0-3';
const TICKET = '0-5';

type Row = [typeId: number, from: string, to: string, label: string | null, inverse: number, max?: number];
const ROWS: Row[] = [
  [279, CONTACT, COMPANY, null, 280],
  [280, COMPANY, CONTACT, null, 279],
  [1, CONTACT, COMPANY, 'Primary', 2, 1],
  [2, COMPANY, CONTACT, 'Primary', 1],
  [3, DEAL, CONTACT, null, 4],
  [4, CONTACT, DEAL, null, 3],
  [341, DEAL, COMPANY, null, 342],
  [342, COMPANY, DEAL, null, 341],
  [5, DEAL, COMPANY, 'Primary', 6, 1],
  [6, COMPANY, DEAL, 'Primary', 5],
  [15, CONTACT, TICKET, null, 16],
  [16, TICKET, CONTACT, null, 15],
  [339, TICKET, COMPANY, null, 340],
  [340, COMPANY, TICKET, null, 339],
  [26, TICKET, COMPANY, 'Primary', 25, 1],
  [25, COMPANY, TICKET, 'Primary', 26],
  [27, DEAL, TICKET, null, 28],
  [28, TICKET, DEAL, null, 27],
];

export const HUBSPOT_DEFINED_TYPES: readonly AssociationType[] = ROWS.map(
  ([typeId, from, to, label, inverse, max]) => ({
    typeId,
    category: 'HUBSPOT_DEFINED',
    fromObjectTypeId: from,
    toObjectTypeId: to,
    label,
    inverseTypeId: inverse,
    ...(max !== undefined ? { maxToObjectIds: max } : {}),
  }),
);

/** One of the account's association labels (USER_DEFINED): its type ids and labels in both directions. */
export interface AccountLabel {
  id: number;
  from: string;
  to: string;
  label: string;
  inverseId: number;
  inverseLabel: string;
}

/**
 * The schema module gives a definition one id (the schemas API's `AssociationDefinition.id`), which is
 * the type from the custom object; the type of the way back is that id past this offset, out of reach
 * of the account's id sequence (labels take ids from it too, two at a time).
 */
export const SCHEMA_INVERSE_TYPE_OFFSET = 1_000_000;
export const schemaInverseTypeId = (definitionId: number): number => SCHEMA_INVERSE_TYPE_OFFSET + definitionId;

/**
 * One of a custom object schema's own association definitions (HubSpot gives them when the schema
 * declares `associatedObjects`, or through `POST /crm/v3/schemas/{type}/associations`): an unlabeled
 * USER_DEFINED type of its pair, `id` from the custom type, `inverseId` the way back.
 */
export interface SchemaAssociationType {
  id: number;
  from: string;
  to: string;
  inverseId: number;
}

/** HubSpot's documented ceiling of associations from one record to records of one other type. */
export const RECORD_ASSOCIATION_LIMIT = 10_000;

/** "Near" a limit: at least this share of it (the limits endpoints). */
export const NEAR_LIMIT_SHARE = 0.8;

/**
 * The types an account has between two object types: HubSpot's and the account's labels
 * (`extra`, from the CRM schema module's definitions). Pure: the catalogue is handed in.
 */
export class AssociationCatalogue {
  private readonly byId = new Map<string, AssociationType>();

  constructor(types: readonly AssociationType[]) {
    for (const t of types) this.byId.set(`${t.category}:${t.typeId}`, t);
  }

  static hubspotDefined(): AssociationCatalogue {
    return new AssociationCatalogue(HUBSPOT_DEFINED_TYPES);
  }

  /**
   * HubSpot's types, the account's labels (each a type per direction) and the custom object schemas'
   * own definitions (each an unlabeled type per direction: the types of custom objects' pairs).
   */
  static withLabels(
    labels: readonly AccountLabel[],
    schemaTypes: readonly SchemaAssociationType[] = [],
  ): AssociationCatalogue {
    return new AssociationCatalogue([
      ...HUBSPOT_DEFINED_TYPES,
      ...schemaTypes.flatMap((d): AssociationType[] => [
        {
          typeId: d.id,
          category: 'USER_DEFINED',
          fromObjectTypeId: d.from,
          toObjectTypeId: d.to,
          label: null,
          inverseTypeId: d.inverseId,
        },
        {
          typeId: d.inverseId,
          category: 'USER_DEFINED',
          fromObjectTypeId: d.to,
          toObjectTypeId: d.from,
          label: null,
          inverseTypeId: d.id,
        },
      ]),
      ...labels.flatMap((l): AssociationType[] => [
        {
          typeId: l.id,
          category: 'USER_DEFINED',
          fromObjectTypeId: l.from,
          toObjectTypeId: l.to,
          label: l.label,
          inverseTypeId: l.inverseId,
        },
        {
          typeId: l.inverseId,
          category: 'USER_DEFINED',
          fromObjectTypeId: l.to,
          toObjectTypeId: l.from,
          label: l.inverseLabel,
          inverseTypeId: l.id,
        },
      ]),
    ]);
  }

  between(from: string, to: string): AssociationType[] {
    return [...this.byId.values()].filter((t) => t.fromObjectTypeId === from && t.toObjectTypeId === to);
  }

  /** A type of this pair by id (and category when given: HubSpot's ids are per category). */
  find(from: string, to: string, typeId: number, category?: string): AssociationType | undefined {
    return this.between(from, to).find(
      (t) => t.typeId === typeId && (category === undefined || t.category === category),
    );
  }

  get(category: string, typeId: number): AssociationType | undefined {
    return this.byId.get(`${category}:${typeId}`);
  }

  /**
   * The pair's unlabeled type: HubSpot's for two standard types, else the first schema definition's
   * (a custom object's pair: USER_DEFINED, as HubSpot's custom object associations are).
   */
  defaultOf(from: string, to: string): AssociationType | undefined {
    const unlabeled = this.between(from, to).filter((t) => t.label === null);
    return (
      unlabeled.find((t) => t.category === 'HUBSPOT_DEFINED') ??
      unlabeled.filter((t) => t.category === 'USER_DEFINED').sort((x, y) => x.typeId - y.typeId)[0]
    );
  }
}
