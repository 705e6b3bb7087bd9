import type { PropertyValueProblem } from './record-errors';

/**
 * What a record's values are checked against: one property definition of the account (from the
 * CRM schema module), reduced to what a value check needs. The handler builds these from the
 * definitions and hands them to the decider with the command.
 */
export interface PropertyRule {
  name: string;
  /** HubSpot's property type: string, number, date, datetime, enumeration, bool, phone_number, ... */
  type: string;
  fieldType: string;
  /** The values an enumeration accepts. */
  options: readonly string[];
  /** An enumeration whose options live elsewhere (HubSpot's pipelines and stages): any value passes. */
  openOptions: boolean;
  /** Calculated properties and HubSpot's system values: refused on write. */
  readOnly: boolean;
  /** hasUniqueValue (and a contact's e-mail): one record per value in the account. */
  unique: boolean;
}

export type PropertyRules = ReadonlyMap<string, PropertyRule>;

export interface CheckedValues {
  /** The values as stored: dates as YYYY-MM-DD, date-times as ISO 8601, booleans lower case; '' clears. */
  values: Record<string, string>;
  problems: PropertyValueProblem[];
}

const NUMBER = /^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/;
const EPOCH_MS = /^-?\d{1,15}$/;
const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DAY_MS = 86_400_000;

/** Checks each given value against its definition, as HubSpot does; every problem is reported at once. */
export function checkPropertyValues(input: Readonly<Record<string, string>>, rules: PropertyRules): CheckedValues {
  const values: Record<string, string> = {};
  const problems: PropertyValueProblem[] = [];
  for (const [name, raw] of Object.entries(input)) {
    const rule = rules.get(name);
    if (!rule) {
      problems.push({ error: 'PROPERTY_DOESNT_EXIST', name, message: `Property "${name}" does not exist` });
      continue;
    }
    if (rule.readOnly) {
      problems.push({
        error: 'READ_ONLY_VALUE',
        name,
        message: `${name} is a read only property; its value cannot be set.`,
      });
      continue;
    }
    const checked = checkValue(raw, rule);
    if (typeof checked === 'string') values[name] = checked;
    else problems.push({ ...checked, name });
  }
  return { values, problems };
}

function checkValue(raw: string, rule: PropertyRule): string | Omit<PropertyValueProblem, 'name'> {
  const value = raw.trim() === '' ? '' : raw;
  if (value === '') return '';
  const shown = JSON.stringify(value.length > 100 ? `${value.slice(0, 100)}...` : value);
  switch (rule.type) {
    case 'number':
      return NUMBER.test(value.trim()) && Number.isFinite(Number(value))
        ? value.trim()
        : { error: 'INVALID_FLOAT', message: `${shown} was not a valid number.` };
    case 'bool': {
      const lower = value.trim().toLowerCase();
      return lower === 'true' || lower === 'false'
        ? lower
        : { error: 'INVALID_BOOLEAN', message: `${shown} was not a valid boolean (true or false).` };
    }
    case 'date':
      return dateValue(value.trim(), shown);
    case 'datetime':
      return dateTimeValue(value.trim(), shown);
    case 'enumeration': {
      if (rule.openOptions) return value;
      const chosen = rule.fieldType === 'checkbox' ? value.split(';').filter((v) => v !== '') : [value];
      const bad = chosen.find((v) => !rule.options.includes(v));
      return bad === undefined
        ? chosen.join(';')
        : {
            error: 'INVALID_OPTION',
            message: `${JSON.stringify(bad)} was not one of the allowed options: [${rule.options.join(', ')}]`,
          };
    }
    default:
      return value;
  }
}

/** HubSpot's date properties: midnight UTC, as epoch milliseconds or YYYY-MM-DD; stored as YYYY-MM-DD. */
function dateValue(value: string, shown: string): string | Omit<PropertyValueProblem, 'name'> {
  let ms: number;
  const iso = ISO_DATE.exec(value);
  if (iso) ms = Date.UTC(Number(iso[1]), Number(iso[2]) - 1, Number(iso[3]));
  else if (EPOCH_MS.test(value)) ms = Number(value);
  else return { error: 'INVALID_DATE', message: `${shown} is not a valid date (YYYY-MM-DD or epoch milliseconds).` };
  const date = new Date(ms);
  if (Number.isNaN(date.getTime()) || (iso && date.toISOString().slice(0, 10) !== value)) {
    return { error: 'INVALID_DATE', message: `${shown} is not a valid date (YYYY-MM-DD or epoch milliseconds).` };
  }
  if (ms % DAY_MS !== 0) {
    return {
      error: 'INVALID_DATE',
      message: `${shown} is at ${date.toISOString().slice(11, 23)} UTC, not midnight!`,
    };
  }
  return date.toISOString().slice(0, 10);
}

/** HubSpot's datetime properties: epoch milliseconds or ISO 8601; stored as ISO 8601 in UTC. */
function dateTimeValue(value: string, shown: string): string | Omit<PropertyValueProblem, 'name'> {
  const ms = EPOCH_MS.test(value) ? Number(value) : /^\d{4}-\d{2}-\d{2}/.test(value) ? Date.parse(value) : NaN;
  const date = new Date(ms);
  if (!Number.isFinite(ms) || Number.isNaN(date.getTime())) {
    return {
      error: 'INVALID_LONG',
      message: `${shown} was not a valid date-time (epoch milliseconds or ISO 8601).`,
    };
  }
  return date.toISOString();
}
