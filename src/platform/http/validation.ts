import { ArgumentMetadata, Injectable, PipeTransform, ValidationError, ValidationPipe } from '@nestjs/common';
import { ErrorDetail, HubSpotError } from '../errors/hubspot-error';

/** One `errors[]` entry per bad field, `in` naming the field by its dotted path. */
export function flattenValidationErrors(errors: ValidationError[], parent = ''): ErrorDetail[] {
  const out: ErrorDetail[] = [];
  for (const e of errors) {
    const path = parent ? `${parent}.${e.property}` : e.property;
    if (e.constraints) {
      const names = Object.keys(e.constraints);
      const required = names.some((n) => n === 'isDefined' || n === 'isNotEmpty');
      const missing = required && (e.value === undefined || e.value === null || e.value === '');
      out.push({
        message: missing ? `${path} is required` : Object.values(e.constraints).join('; '),
        in: path,
        code: missing ? 'REQUIRED' : 'INVALID',
      });
    }
    if (e.children?.length) out.push(...flattenValidationErrors(e.children, path));
  }
  return out;
}

export function validationErrorFrom(errors: ValidationError[]): HubSpotError {
  const details = flattenValidationErrors(errors);
  const fields = details.map((d) => d.in).join(', ');
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

  async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    // Primitive params are left to their own pipes (IntParamPipe): implicit conversion would turn "1e3" into 1000.
    if (!isDtoClass(metadata.metatype)) return value;
    if (metadata.type === 'body') {
      if (typeof value !== 'object' || value === null || Array.isArray(value)) {
        throw HubSpotError.validation('Invalid input: the request body must be a JSON object.', [
          { message: 'expected a JSON object', in: 'body', code: 'INVALID_BODY' },
        ]);
      }
      // class-transformer recurses: a body nested thousands of levels deep would overflow the stack.
      if (nestingDepthExceeds(value, MAX_BODY_DEPTH)) {
        throw HubSpotError.validation(
          `Invalid input: the request body is nested deeper than ${MAX_BODY_DEPTH} levels.`,
          [{ message: `nested deeper than ${MAX_BODY_DEPTH} levels`, in: 'body', code: 'TOO_DEEP' }],
        );
      }
    }
    return this.inner.transform(value, metadata);
  }
}

const MAX_BODY_DEPTH = 32;

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
