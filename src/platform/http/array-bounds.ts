import { defaultMetadataStorage } from 'class-transformer/cjs/storage';
import { getMetadataStorage } from 'class-validator';
import type { ErrorDetail } from '../errors/hubspot-error';

type ValidationMetadata = ReturnType<ReturnType<typeof getMetadataStorage>['getTargetValidationMetadatas']>[number];

/** A DTO class, as class-validator and class-transformer key their metadata. */
export type DtoClass = abstract new (...args: never[]) => unknown;

/**
 * Arrays in a DTO without their own `@ArrayMaxSize` (none today: a unit test checks every DTO
 * array has one) are still bounded by this.
 */
export const DEFAULT_MAX_ARRAY_ITEMS = 1000;
/**
 * Elements of all the arrays in one body, together. class-validator spends tens of microseconds
 * per nested element (more when it fails), so a body inside every per-field bound (100 property
 * inputs × 1,000 options) could still hold the event loop for seconds; a body past this is
 * refused before any element is validated. A real batch of 100 enumeration properties with 100
 * options each fits.
 */
export const MAX_BODY_ARRAY_ITEMS = 5000;

/**
 * Free-form values: those of declared fields typed only `@IsObject()` (maps of record properties,
 * say). class-transformer copies every node of them; a body whose free-form values hold more
 * than these is refused before it does. A batch of 100 records with 100 properties each fits.
 */
export const MAX_FREE_FORM_VALUES = 20_000;
/** Objects and arrays inside free-form values, each a recursion of class-transformer's. */
export const MAX_FREE_FORM_CONTAINERS = 1_000;

interface ArrayField {
  property: string;
  max: number;
  /** The DTO each element (or the value itself, when not an array) is validated as. */
  nested?: DtoClass;
}

const fieldsByClass = new Map<DtoClass, ArrayField[]>();

/** The fields of a DTO that are arrays or nested DTOs, with their `@ArrayMaxSize` (cached per class). */
function fieldsOf(dto: DtoClass): ArrayField[] {
  let fields = fieldsByClass.get(dto);
  if (fields) return fields;
  const metadata = getMetadataStorage().getTargetValidationMetadatas(dto, '', true, false);
  const byProperty = new Map<string, ValidationMetadata[]>();
  for (const m of metadata) byProperty.set(m.propertyName, [...(byProperty.get(m.propertyName) ?? []), m]);
  fields = [];
  for (const [property, rules] of byProperty) {
    const max = rules.find((r) => r.name === 'arrayMaxSize')?.constraints[0] as number | undefined;
    const isArray = max !== undefined || rules.some((r) => r.name === 'isArray' || r.each);
    // The element DTO is class-transformer's `@Type`, resolved once here (DTOs are all declared by now).
    const type = rules.some((r) => r.type === 'nestedValidation')
      ? (defaultMetadataStorage.findTypeMetadata(dto, property)?.typeFunction() as DtoClass | undefined)
      : undefined;
    if (isArray || type) fields.push({ property, max: max ?? DEFAULT_MAX_ARRAY_ITEMS, nested: type });
  }
  fieldsByClass.set(dto, fields);
  return fields;
}

/**
 * What the validators accept in a declared property: a nested DTO, a free-form object
 * (`@IsObject()` without a DTO), or primitives (arrays of them included).
 */
type Declared = { nested: DtoClass } | 'free-form' | 'primitive' | 'primitives';

/** Every property a DTO declares (any class-validator decorator), with what its value may be. */
const declaredByClass = new Map<DtoClass, Map<string, Declared>>();

function declaredOf(dto: DtoClass): Map<string, Declared> {
  let declared = declaredByClass.get(dto);
  if (declared) return declared;
  declared = new Map();
  for (const m of getMetadataStorage().getTargetValidationMetadatas(dto, '', true, false)) {
    // Nested validation without a DTO type to build: the value stays an object, kept as sent.
    if (m.name === 'isObject' || m.type === 'nestedValidation') declared.set(m.propertyName, 'free-form');
    else if (!declared.has(m.propertyName)) declared.set(m.propertyName, 'primitive');
  }
  for (const field of fieldsOf(dto)) {
    if (field.nested) declared.set(field.property, { nested: field.nested });
    else if (declared.get(field.property) === 'primitive') declared.set(field.property, 'primitives');
  }
  declaredByClass.set(dto, declared);
  return declared;
}

/** An object or array where a primitive belongs: invalid whatever it holds, so an empty one says the same. */
const emptied = (v: unknown): unknown => (typeof v !== 'object' || v === null ? v : Array.isArray(v) ? [] : {});

/**
 * The body with only the fields its DTOs declare, nested DTOs included: what the validation pipe's
 * whitelist would keep, found before any framework walk. Nest's ValidationPipe (proto-key
 * stripping) and class-transformer walk every node of the body, declared or not, so an undeclared
 * field holding 85,000 empty objects cost up to a second of event loop per request; dropped here,
 * it costs only the walk over the keys it sits among. Where a primitive (or an array of them)
 * belongs, an object or array is invalid whatever it holds: it goes on empty (the validators'
 * answer is the same). Free-form values are counted; `tooLarge` when they hold more than the bounds.
 */
export function declaredFieldsOnly(dto: DtoClass, body: unknown): { body: unknown; tooLarge: boolean } {
  let values = 0;
  let containers = 0;
  const withinFreeFormBounds = (value: unknown): boolean => {
    const stack = [value];
    while (stack.length > 0) {
      const v = stack.pop();
      if (typeof v !== 'object' || v === null) continue;
      const children = Array.isArray(v) ? v : Object.values(v);
      values += children.length;
      if (++containers > MAX_FREE_FORM_CONTAINERS || values > MAX_FREE_FORM_VALUES) return false;
      for (const child of children) if (typeof child === 'object' && child !== null) stack.push(child);
    }
    return true;
  };
  const prune = (type: DtoClass, value: unknown): unknown => {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return value; // the validators say why
    const declared = declaredOf(type);
    const kept: Record<string, unknown> = {};
    for (const key of Object.keys(value)) {
      const kind = declared.get(key);
      if (kind === undefined) continue;
      const v = (value as Record<string, unknown>)[key];
      // An array of primitives (its length already bounded) keeps its elements, containers emptied; a
      // single primitive's place takes any object or array empty.
      if (kind === 'primitives') kept[key] = Array.isArray(v) ? v.map(emptied) : emptied(v);
      else if (kind === 'primitive') kept[key] = emptied(v);
      else if (kind === 'free-form') {
        if (!withinFreeFormBounds(v)) throw TOO_LARGE;
        kept[key] = v;
      } else kept[key] = Array.isArray(v) ? v.map((e) => prune(kind.nested, e)) : prune(kind.nested, v);
    }
    return kept;
  };
  try {
    return { body: prune(dto, body), tooLarge: false };
  } catch (error) {
    if (error === TOO_LARGE) return { body, tooLarge: true };
    throw error;
  }
}

const TOO_LARGE = Symbol('too large');

/**
 * The arrays of a body that are longer than their DTO allows (each field's `@ArrayMaxSize`,
 * nested DTOs included), found before class-transformer or class-validator touch an element:
 * an iterative walk over the raw body that reads only the fields the DTOs declare, and never
 * enters an array it has just refused. Also refuses a body whose arrays hold more than
 * MAX_BODY_ARRAY_ITEMS elements together. At most `maxReported` details.
 */
export function overlongArrays(dto: DtoClass, body: unknown, maxReported: number): ErrorDetail[] {
  const found: ErrorDetail[] = [];
  let items = 0;
  const stack: Array<[DtoClass, unknown, string]> = [[dto, body, '']];
  while (stack.length > 0 && found.length < maxReported) {
    const [type, value, parent] = stack.pop()!;
    if (typeof value !== 'object' || value === null) continue;
    for (const field of fieldsOf(type)) {
      const v = (value as Record<string, unknown>)[field.property];
      const path = parent ? `${parent}.${field.property}` : field.property;
      if (Array.isArray(v)) {
        if (v.length > field.max) {
          found.push({
            message: `${path} must contain no more than ${field.max} elements`,
            in: path,
            code: 'TOO_MANY_ITEMS',
          });
          continue;
        }
        items += v.length;
        if (items > MAX_BODY_ARRAY_ITEMS) {
          return [
            {
              message: `the arrays of the body hold more than ${MAX_BODY_ARRAY_ITEMS} elements together`,
              in: 'body',
              code: 'TOO_MANY_ITEMS',
            },
          ];
        }
        const nested = field.nested;
        // Pushed last to first: the walk reports the fields in the body's order.
        if (nested) for (let i = v.length - 1; i >= 0; i--) stack.push([nested, v[i], `${path}.${i}`]);
      } else if (field.nested && typeof v === 'object' && v !== null) {
        stack.push([field.nested, v, path]);
      }
    }
  }
  return found;
}
