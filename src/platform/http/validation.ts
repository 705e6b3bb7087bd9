import { ArgumentMetadata, Injectable, PipeTransform, ValidationError, ValidationPipe } from '@nestjs/common';
import { ErrorDetail, HubSpotError } from '../errors/hubspot-error';
import { keepValidationRuleLists } from './validation-rule-lists';
import {
  declaredFieldsOnly,
  type DtoClass,
  MAX_FREE_FORM_CONTAINERS,
  MAX_FREE_FORM_VALUES,
  overlongArrays,
} from './array-bounds';

/**
 * At most this many `errors[]` entries in one answer (HubSpot lists a few, not thousands); the
 * message says how many more fields were bad.
 */
export const MAX_REPORTED_ERRORS = 20;

/**
 * One `errors[]` entry per bad field, `in` naming the field by its dotted path, depth first in the
 * body's order, at most `max` of them. Iterative, so a tree of any width or depth costs no stack.
 */
export function flattenValidationErrors(
  errors: ValidationError[],
  max = MAX_REPORTED_ERRORS,
): { details: ErrorDetail[]; total: number } {
  const details: ErrorDetail[] = [];
  let total = 0;
  const stack: Array<[ValidationError, string]> = [];
  const pushAll = (list: ValidationError[], parent: string) => {
    for (let i = list.length - 1; i >= 0; i--) stack.push([list[i]!, parent]);
  };
  pushAll(errors, '');
  while (stack.length > 0) {
    const [e, parent] = stack.pop()!;
    const path = parent ? `${parent}.${e.property}` : e.property;
    if (e.constraints) {
      total++;
      if (details.length < max) details.push(detailOf(e, path));
    }
    if (e.children?.length) pushAll(e.children, path);
  }
  return { details, total };
}

function detailOf(e: ValidationError, path: string): ErrorDetail {
  const constraints = e.constraints ?? {};
  const names = Object.keys(constraints);
  const required = names.some((n) => n === 'isDefined' || n === 'isNotEmpty');
  // class-validator reports an absent value only for a field that is not optional: it is required.
  const missing = e.value === undefined || e.value === null || (required && e.value === '');
  return {
    message: missing ? `${path} is required` : Object.values(constraints).join('; '),
    in: path,
    code: missing ? 'REQUIRED' : 'INVALID',
  };
}

export function validationErrorFrom(errors: ValidationError[]): HubSpotError {
  const { details, total } = flattenValidationErrors(errors);
  return invalidFields(details, total);
}

/** HubSpot's VALIDATION_ERROR naming the bad fields (the first ones, and how many more). */
function invalidFields(details: ErrorDetail[], total: number): HubSpotError {
  const more = total > details.length ? ` and ${total - details.length} more` : '';
  const fields = details.map((d) => d.in).join(', ') + more;
  return HubSpotError.validation(`Invalid input (details will vary based on the error): ${fields}`, details);
}

/** The global pipe: strict class-validator DTOs; a body that is not a JSON object is refused first. */
@Injectable()
export class HubSpotValidationPipe implements PipeTransform {
  private readonly inner = new ValidationPipe({
    transform: true,
    whitelist: true,
    forbidUnknownValues: true,
    validationError: { target: false, value: true },
    exceptionFactory: validationErrorFrom,
  });

  constructor() {
    keepValidationRuleLists();
  }

  transform(value: unknown, metadata: ArgumentMetadata): unknown {
    // Primitive params are left to their own pipes (IntParamPipe): implicit conversion would turn "1e3" into 1000.
    // Returned as is, not in a promise: Nest awaits each parameter's pipes, and a promise costs more ticks.
    if (!isDtoClass(metadata.metatype)) return value;
    return this.validated(value, metadata);
  }

  /** A DTO's parameter: bounded (bodies), then class-validator; a refusal is a rejected promise, as before. */
  private async validated(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    if (metadata.type === 'body') value = boundedBody(metadata.metatype as DtoClass, value);
    return this.inner.transform(value, metadata);
  }
}

/**
 * The body's shape bounded before class-transformer or class-validator visit a node: a JSON object;
 * over-long declared arrays refused without entering them; undeclared fields dropped (the whitelist
 * would drop them after walking them); the free-form values of declared fields counted; then the
 * depth of what is left.
 */
function boundedBody(dto: DtoClass, value: unknown): unknown {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw HubSpotError.validation('Invalid input: the request body must be a JSON object.', [
      { message: 'expected a JSON object', in: 'body', code: 'INVALID_BODY' },
    ]);
  }
  (dto as BodyRefusal).refuseBody?.(value as Record<string, unknown>);
  const overlong = overlongArrays(dto, value, MAX_REPORTED_ERRORS);
  if (overlong.length > 0) throw invalidFields(overlong, overlong.length);
  const declared = declaredFieldsOnly(dto, value);
  if (declared.tooLarge) {
    throw invalidFields(
      [
        {
          message: `the free-form values of the body hold more than ${MAX_FREE_FORM_VALUES} values or ${MAX_FREE_FORM_CONTAINERS} objects and arrays together`,
          in: 'body',
          code: 'TOO_MANY_ITEMS',
        },
      ],
      1,
    );
  }
  // class-transformer recurses: a body nested thousands of levels deep would overflow the stack.
  if (nestingDepthExceeds(declared.body, MAX_BODY_DEPTH)) {
    throw HubSpotError.validation(`Invalid input: the request body is nested deeper than ${MAX_BODY_DEPTH} levels.`, [
      { message: `nested deeper than ${MAX_BODY_DEPTH} levels`, in: 'body', code: 'TOO_DEEP' },
    ]);
  }
  return declared.body;
}

const MAX_BODY_DEPTH = 32;

/**
 * A DTO may refuse a whole body before any field is validated, with its module's own error (the
 * records API answers a batch of more than 100 inputs with HubSpot's message, not a field's).
 */
interface BodyRefusal {
  refuseBody?(body: Record<string, unknown>): void;
}

/** Iterative (no recursion, so no stack overflow on hostile input). */
export function nestingDepthExceeds(value: unknown, max: number): boolean {
  const stack: Array<[unknown, number]> = [[value, 1]];
  while (stack.length > 0) {
    const [v, depth] = stack.pop()!;
    if (typeof v !== 'object' || v === null) continue;
    if (depth > max) return true;
    for (const child of Object.values(v))
      if (typeof child === 'object' && child !== null) stack.push([child, depth + 1]);
  }
  return false;
}

function isDtoClass(metatype: unknown): boolean {
  return typeof metatype === 'function' && ![String, Number, Boolean, Object, Array].includes(metatype as never);
}
