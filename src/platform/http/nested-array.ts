import { ApiProperty, ApiPropertyOptional, type ApiPropertyOptions } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsDefined, IsOptional, ValidateNested } from 'class-validator';
import type { DtoClass } from './array-bounds';

export interface NestedArrayOptions {
  /** `@ArrayMaxSize`: every DTO array has one (array-bounds.ts counts on it). */
  max: number;
  min?: number;
  /** The message when there are fewer than `min` (the default: class-validator's). */
  minMessage?: string;
  /** Absent is allowed (`@IsOptional`); otherwise `@IsDefined`. */
  optional?: boolean;
  /** The message when the field is missing or not an array (the default: class-validator's). */
  message?: string;
  /** The documented schema's extras (description, maxItems…). */
  api?: ApiPropertyOptions;
  /** Decorators that sit between the bounds and the nested validation (`@ArrayUnique`, `@Transform`…). */
  also?: PropertyDecorator[];
}

/**
 * A field holding an array of nested DTOs: documented, required or optional, an array, bounded, each
 * element validated as `item`. The decorators run in the order they ran written out one per line
 * (bottom first), so each constraint keeps its place in an error's message.
 */
export function NestedArray(item: () => DtoClass, options: NestedArrayOptions): PropertyDecorator {
  const message = options.message === undefined ? undefined : { message: options.message };
  const schema = { type: [item()], ...options.api } as ApiPropertyOptions;
  const written: PropertyDecorator[] = [
    options.optional ? ApiPropertyOptional(schema) : ApiProperty(schema),
    options.optional ? IsOptional() : IsDefined(message),
    IsArray(message),
    ...(options.min === undefined
      ? []
      : [ArrayMinSize(options.min, options.minMessage === undefined ? undefined : { message: options.minMessage })]),
    ArrayMaxSize(options.max),
    ...(options.also ?? []),
    ValidateNested({ each: true }),
    Type(item as () => new () => unknown),
  ];
  return (target, key) => {
    for (let i = written.length - 1; i >= 0; i--) written[i]!(target, key);
  };
}
