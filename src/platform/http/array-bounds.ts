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
