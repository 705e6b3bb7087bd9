import type { ErrorDetail } from '../../platform/errors/hubspot-error';
import type { PropertyDefinition } from './limits-events';
import { CustomTypeRef, resolveObjectType, standardObjectType } from './object-types';
import { isCalculated, normalizeProperty, PropertyInput } from './property-rules';

/** HubSpot's ObjectSchemaEgg as received (types already checked by the HTTP layer). */
export interface SchemaInput {
  name: string;
  labels: { singular?: string; plural?: string };
  description?: string;
  primaryDisplayProperty?: string;
  secondaryDisplayProperties?: string[];
  searchableProperties?: string[];
  requiredProperties: string[];
  properties: PropertyInput[];
  associatedObjects: string[];
}

export const SCHEMA_NAME = /^[A-Za-z][A-Za-z0-9_]*$/;
export const MAX_SCHEMA_NAME_LENGTH = 100;

/** What a valid schema turns into: trimmed labels, normalized properties, association targets. */
export interface NormalizedSchema {
  labels: { singular: string; plural: string };
  properties: PropertyDefinition[];
  /** objectTypeIds the new type associates with, each once, in the order given. */
  associationTargets: string[];
}

/**
 * Cross-field rules of a new schema (the HTTP layer already checked each field's type and
 * length): its name, labels, its properties (none calculated, no name twice), the property names
 * other fields refer to, and the object types it associates with (standard types or the
 * account's active schemas). Returns the normalized schema, or one error per broken rule.
 */
export function normalizeSchema(
  schema: SchemaInput,
  hubId: number,
  existing: Iterable<CustomTypeRef>,
): { schema: NormalizedSchema; errors: ErrorDetail[] } {
  const errors: ErrorDetail[] = [];
  const bad = (field: string, message: string, code = 'INVALID') => errors.push({ message, in: field, code });

  if (!SCHEMA_NAME.test(schema.name) || schema.name.length > MAX_SCHEMA_NAME_LENGTH) {
    bad(
      'name',
      `Schema name '${schema.name}' is invalid: use 1-${MAX_SCHEMA_NAME_LENGTH} letters, digits and underscores, starting with a letter.`,
    );
  } else if (standardObjectType(schema.name)) {
    bad('name', `Schema name '${schema.name}' is reserved for a HubSpot object type.`);
  }
  const singular = schema.labels.singular?.trim() ?? '';
  const plural = schema.labels.plural?.trim() ?? '';
  if (!singular) bad('labels.singular', 'labels.singular is required', 'REQUIRED');
  if (!plural) bad('labels.plural', 'labels.plural is required', 'REQUIRED');

  const groupName = `${schema.name.toLowerCase()}_information`;
  const properties: PropertyDefinition[] = [];
  const names = new Set<string>();
  schema.properties.forEach((p, i) => {
    const { definition, errors: propertyErrors } = normalizeProperty(p, groupName, `properties[${i}]`);
    errors.push(...propertyErrors);
    if (isCalculated(definition.fieldType)) {
      bad(
        `properties[${i}].fieldType`,
        'calculated properties are created through /crm/v3/properties/{objectType}, not with the schema',
      );
    }
    if (names.has(definition.name)) bad(`properties[${i}].name`, `property name '${definition.name}' appears twice`);
    names.add(definition.name);
    properties.push(definition);
  });
  const mustBeDefined = (field: string, list: readonly string[]) =>
    list.forEach((n, i) => {
      if (!names.has(n)) bad(`${field}[${i}]`, `'${n}' is not one of the schema's properties`);
    });
  mustBeDefined('requiredProperties', schema.requiredProperties);
  mustBeDefined('secondaryDisplayProperties', schema.secondaryDisplayProperties ?? []);
  mustBeDefined('searchableProperties', schema.searchableProperties ?? []);
  if (schema.primaryDisplayProperty !== undefined && !names.has(schema.primaryDisplayProperty)) {
    bad('primaryDisplayProperty', `'${schema.primaryDisplayProperty}' is not one of the schema's properties`);
  }

  const associationTargets: string[] = [];
  const known = [...existing];
  schema.associatedObjects.forEach((raw, i) => {
    const r = resolveObjectType(raw, hubId, known);
    if (!r) bad(`associatedObjects[${i}]`, `Unable to infer object type from: ${raw}`);
    else if (!associationTargets.includes(r.objectTypeId)) associationTargets.push(r.objectTypeId);
  });

  return { schema: { labels: { singular, plural }, properties, associationTargets }, errors };
}
