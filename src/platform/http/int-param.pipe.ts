import { ArgumentMetadata, Injectable, PipeTransform } from '@nestjs/common';
import { HubSpotError } from '../errors/hubspot-error';

/**
 * Path and query ids: decimal digits only, within a range (int32 by default, as HubSpot's
 * hub, user and app ids). Anything else is a VALIDATION_ERROR naming the parameter, never a 500.
 */
@Injectable()
export class IntParamPipe implements PipeTransform<string | undefined, number | undefined> {
  constructor(private readonly options: { min?: number; max?: number; optional?: boolean } = {}) {}

  transform(value: string | undefined, metadata: ArgumentMetadata): number | undefined {
    const name = metadata.data ?? metadata.type;
    if (value === undefined || value === '') {
      if (this.options.optional) return undefined;
      throw HubSpotError.validation(`${name} is required`, [
        { message: `${name} is required`, in: name, code: 'REQUIRED' },
      ]);
    }
    const min = this.options.min ?? 1;
    const max = this.options.max ?? 2_147_483_647;
    const n = /^\d{1,16}$/.test(value) ? Number(value) : NaN;
    if (!Number.isSafeInteger(n) || n < min || n > max) {
      throw HubSpotError.validation(`Invalid ${name}: expected an integer from ${min} to ${max}`, [
        { message: `expected an integer from ${min} to ${max}`, in: name, code: 'INVALID_INTEGER' },
      ]);
    }
    return n;
  }
}
