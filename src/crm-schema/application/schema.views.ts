import type { PropertyView } from './property.views';

/** Wire shapes of HubSpot's CRM schemas API (ObjectSchema, AssociationDefinition, ObjectTypeDefinition). */
export interface ObjectSchemaView {
  id: string;
  objectTypeId: string;
  fullyQualifiedName: string;
  name: string;
  labels: { singular: string; plural: string };
  description?: string;
  primaryDisplayProperty?: string;
  secondaryDisplayProperties: string[];
  searchableProperties: string[];
  requiredProperties: string[];
  properties: PropertyView[];
  associations: AssociationView[];
  archived: boolean;
  /** Audit metadata (left out with includeAuditMetadata=false). */
  createdAt?: string;
  updatedAt?: string;
  createdByUserId?: number;
  updatedByUserId?: number;
}

/** AssociationDefinition: an unnamed definition has no `name` on the wire. */
export interface AssociationView {
  id: string;
  fromObjectTypeId: string;
  toObjectTypeId: string;
  name?: string;
  createdAt?: string;
  updatedAt?: string;
}

/** ObjectTypeDefinition (the PATCH answer): the schema without properties and associations. */
export interface ObjectTypeDefinitionView {
  id: string;
  objectTypeId: string;
  fullyQualifiedName: string;
  name: string;
  portalId: number;
  labels: { singular: string; plural: string };
  description?: string;
  primaryDisplayProperty?: string;
  secondaryDisplayProperties: string[];
  searchableProperties: string[];
  requiredProperties: string[];
  archived: boolean;
  createdAt: string;
  updatedAt: string;
}

/** What GET/list/batch-read answer: HubSpot's three include flags, true unless asked otherwise. */
export interface SchemaIncludes {
  associations: boolean;
  properties: boolean;
  audit: boolean;
}

export const INCLUDE_ALL: SchemaIncludes = { associations: true, properties: true, audit: true };

/** A new association label's two types, HubSpot's CollectionResponseAssociationSpecWithLabelNoPaging. */
export interface AssociationLabelTypesView {
  results: Array<{ category: 'USER_DEFINED'; typeId: number; label: string }>;
}
