import type { ErrorDetail } from '../../platform/errors/hubspot-error';
import type { PropertyDefinition, PropertyOption } from './limits-events';

/** HubSpot's PropertyCreate as received (types already checked by the HTTP layer). */
export interface PropertyInput {
  name: string;
  label: string;
  type: string;
  fieldType: string;
  groupName?: string;
  description?: string;
  options?: Array<{ label: string; value: string; description?: string; displayOrder?: number; hidden?: boolean }>;
  displayOrder?: number;
  hasUniqueValue?: boolean;
  hidden?: boolean;
  formField?: boolean;
  externalOptions?: boolean;
  referencedObjectType?: string;
  calculationFormula?: string;
  numberDisplayHint?: string;
  textDisplayHint?: string;
  showCurrencySymbol?: boolean;
  currencyPropertyName?: string;
  dataSensitivity?: string;
}

/** HubSpot's `dataSensitivity` values (query parameter and batch-read body). */
export const DATA_SENSITIVITIES = ['non_sensitive', 'sensitive', 'highly_sensitive'] as const;
export type DataSensitivity = (typeof DATA_SENSITIVITIES)[number];

/** PropertyCreate / PropertyUpdate display hints (v3 and 2026-03 specs). */
export const NUMBER_DISPLAY_HINTS = [
  'unformatted',
  'formatted',
  'currency',
  'percentage',
  'duration',
  'probability',
] as const;
export const TEXT_DISPLAY_HINTS = [
  'unformatted_single_line',
  'multi_line',
  'email',
  'phone_number',
  'domain_name',
  'ip_address',
  'physical_address',
  'postal_code',
] as const;

export const PROPERTY_TYPES = ['string', 'number', 'date', 'datetime', 'enumeration', 'bool', 'phone_number'] as const;
export const FIELD_TYPES = [
  'textarea',
  'text',
  'date',
  'file',
  'number',
  'select',
  'radio',
  'checkbox',
  'booleancheckbox',
  'calculation_equation',
  'html',
  'phonenumber',
] as const;

/** Which field types HubSpot accepts for each property type; calculated properties fit every type. */
const FIELD_TYPES_BY_TYPE: Record<string, readonly string[]> = {
  string: ['text', 'textarea', 'file', 'html', 'phonenumber', 'calculation_equation'],
  number: ['number', 'calculation_equation'],
  date: ['date', 'calculation_equation'],
  datetime: ['date', 'calculation_equation'],
  enumeration: ['select', 'radio', 'checkbox', 'booleancheckbox', 'calculation_equation'],
  bool: ['booleancheckbox', 'radio', 'select', 'calculation_equation'],
  phone_number: ['phonenumber'],
};

/** HubSpot lets a property require unique values only when it is single-line text or a number. */
const UNIQUE_VALUE_FIELDS: Record<string, string> = { string: 'text', number: 'number' };

export const PROPERTY_NAME = /^[a-z][a-z0-9_]*$/;
export const MAX_NAME_LENGTH = 100;
export const MAX_FORMULA_LENGTH = 5000;

export const isCalculated = (fieldType: string) => fieldType === 'calculation_equation';

/**
 * Cross-field rules of a property definition (the HTTP layer already checked each field's type
 * and length). Returns the normalized definition, or one error per broken rule.
 */
export function normalizeProperty(
  input: PropertyInput,
  defaultGroupName: string,
  path = '',
): { definition: PropertyDefinition; errors: ErrorDetail[] } {
  const errors: ErrorDetail[] = [];
  const at = (field: string) => (path ? `${path}.${field}` : field);
  const bad = (field: string, message: string, code = 'INVALID') => errors.push({ message, in: at(field), code });

  if (!PROPERTY_NAME.test(input.name) || input.name.length > MAX_NAME_LENGTH) {
    bad(
      'name',
      `Property name '${input.name}' is invalid: use 1-${MAX_NAME_LENGTH} lowercase letters, digits and underscores, starting with a letter.`,
    );
  } else if (input.name.startsWith('hs_')) {
    bad('name', `Property name '${input.name}' is invalid: the hs_ prefix is reserved for HubSpot-defined properties.`);
  }
  if (input.label.trim() === '') bad('label', 'label must not be blank', 'REQUIRED');

  const allowed = FIELD_TYPES_BY_TYPE[input.type];
  if (!allowed) bad('type', `type must be one of ${PROPERTY_TYPES.join(', ')}`);
  else if (!allowed.includes(input.fieldType)) {
    bad(
      'fieldType',
      `fieldType '${input.fieldType}' is not valid for type '${input.type}'; valid: ${allowed.join(', ')}`,
    );
  }

  if (input.hasUniqueValue === true && UNIQUE_VALUE_FIELDS[input.type] !== input.fieldType) {
    bad(
      'hasUniqueValue',
      `hasUniqueValue is only allowed on single-line text (type string, fieldType text) and number (type number, fieldType number) properties, not type '${input.type}' with fieldType '${input.fieldType}'`,
    );
  }

  const calculated = isCalculated(input.fieldType);
  const formula = input.calculationFormula?.trim() ?? '';
  if (calculated && formula === '') {
    bad('calculationFormula', 'calculationFormula is required when fieldType is calculation_equation', 'REQUIRED');
  }
  if (!calculated && input.calculationFormula !== undefined) {
    bad('calculationFormula', 'calculationFormula is only allowed when fieldType is calculation_equation');
  }

  let options: PropertyOption[] = (input.options ?? []).map((o, i) => ({
    label: o.label,
    value: o.value,
    description: o.description ?? '',
    displayOrder: o.displayOrder ?? i,
    hidden: o.hidden ?? false,
  }));
  const hasOptions = input.type === 'enumeration' || input.type === 'bool';
  if (!hasOptions && options.length > 0) bad('options', `options are only allowed for enumeration and bool properties`);
  if (input.type === 'enumeration' && !calculated && !input.externalOptions && options.length === 0) {
    bad('options', 'an enumeration property needs at least one option', 'REQUIRED');
  }
  if (input.type === 'bool' && options.length === 0) {
    options = [
      { label: 'Yes', value: 'true', description: '', displayOrder: 0, hidden: false },
      { label: 'No', value: 'false', description: '', displayOrder: 1, hidden: false },
    ];
  }
  const seen = new Set<string>();
  options.forEach((o, i) => {
    if (seen.has(o.value)) bad(`options[${i}].value`, `option value '${o.value}' appears twice`);
    seen.add(o.value);
  });

  // Display hints belong to the type they describe; a currency code property only to currency numbers.
  if (input.numberDisplayHint !== undefined && input.type !== 'number') {
    bad('numberDisplayHint', `numberDisplayHint is only allowed on number properties, not ${input.type}`);
  }
  if (input.textDisplayHint !== undefined && input.type !== 'string') {
    bad('textDisplayHint', `textDisplayHint is only allowed on string properties, not ${input.type}`);
  }
  for (const field of ['showCurrencySymbol', 'currencyPropertyName'] as const) {
    if (input[field] !== undefined && input.type !== 'number') {
      bad(field, `${field} is only allowed on number properties, not ${input.type}`);
    }
  }
  const oneOf = (field: keyof PropertyInput, allowed: readonly string[]) => {
    const v = input[field];
    if (v !== undefined && !allowed.includes(String(v))) bad(field, `${field} must be one of ${allowed.join(', ')}`);
  };
  oneOf('numberDisplayHint', NUMBER_DISPLAY_HINTS);
  oneOf('textDisplayHint', TEXT_DISPLAY_HINTS);
  oneOf('dataSensitivity', DATA_SENSITIVITIES);
  if (input.currencyPropertyName !== undefined && !PROPERTY_NAME.test(input.currencyPropertyName)) {
    bad('currencyPropertyName', `currencyPropertyName '${input.currencyPropertyName}' is not a property name`);
  }

  const definition: PropertyDefinition = {
    name: input.name,
    label: input.label,
    type: input.type,
    fieldType: input.fieldType,
    groupName: input.groupName?.trim() ? input.groupName.trim() : defaultGroupName,
    description: input.description ?? '',
    options,
    displayOrder: input.displayOrder ?? -1,
    hasUniqueValue: input.hasUniqueValue ?? false,
    hidden: input.hidden ?? false,
    // calculated properties cannot be edited on forms in HubSpot
    formField: calculated ? false : (input.formField ?? false),
    externalOptions: input.externalOptions ?? false,
    referencedObjectType: input.referencedObjectType ?? null,
    calculationFormula: calculated ? formula : null,
    // Only when given, so definitions stored before these fields existed read back unchanged.
    ...(input.numberDisplayHint !== undefined ? { numberDisplayHint: input.numberDisplayHint } : {}),
    ...(input.textDisplayHint !== undefined ? { textDisplayHint: input.textDisplayHint } : {}),
    ...(input.showCurrencySymbol !== undefined ? { showCurrencySymbol: input.showCurrencySymbol } : {}),
    ...(input.currencyPropertyName !== undefined ? { currencyPropertyName: input.currencyPropertyName } : {}),
    ...(input.dataSensitivity !== undefined && input.dataSensitivity !== 'non_sensitive'
      ? { dataSensitivity: input.dataSensitivity as Exclude<DataSensitivity, 'non_sensitive'> }
      : {}),
  };
  return { definition, errors };
}
