import { ArgumentMetadata, Injectable, PipeTransform } from '@nestjs/common';
import { HubSpotError } from '../../platform/errors/hubspot-error';
import { toCardId } from '../domain/card-ids';

/** `{cardId}` path segments: a string of digits within int64, as HubSpot's card ids; else VALIDATION_ERROR. */
@Injectable()
export class CardIdParamPipe implements PipeTransform<string, string> {
  transform(value: string, metadata: ArgumentMetadata): string {
    const name = metadata.data ?? 'cardId';
    const id = toCardId(value);
    if (id === null) {
      throw HubSpotError.validation(`Invalid ${name}: expected a card id (a positive int64 in decimal digits)`, [
        { message: 'expected a positive int64 in decimal digits', in: name, code: 'INVALID_INTEGER' },
      ]);
    }
    return id;
  }
}
