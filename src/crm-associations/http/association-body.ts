import {
  type ArgumentMetadata,
  createParamDecorator,
  type ExecutionContext,
  Injectable,
  type PipeTransform,
} from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import type { DtoClass } from '../../platform/http/array-bounds';
import { HubSpotValidationPipe } from '../../platform/http/validation';
import { requestBodyExpected } from '../domain/association-errors';
import { AssociationSpecListDto } from './association.dto';

const rawBody = createParamDecorator((_: unknown, ctx: ExecutionContext): unknown => {
  return ctx.switchToHttp().getRequest<FastifyRequest>().body;
});

const absent = (v: unknown) => v === undefined || v === null || v === '';

/**
 * The associations API's bodies: none at all is HubSpot's own text ("a request body was expected,
 * but none found"); anything else goes through the house's validation pipe with the route's DTO.
 */
@Injectable()
class AssociationBodyPipe implements PipeTransform {
  private readonly validation = new HubSpotValidationPipe();

  async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    if (absent(value)) throw requestBodyExpected();
    const dto = metadata.data as unknown as DtoClass;
    // A JSON array body (PUT …/associations/{to}/{toId}) is validated as the field `body` of a DTO,
    // so its errors read `body.0.associationTypeId`.
    if (dto === AssociationSpecListDto) {
      const checked = (await this.validation.transform({ body: value }, { type: 'body', metatype: dto as never })) as {
        body: unknown;
      };
      return checked.body;
    }
    return this.validation.transform(value, { type: 'body', metatype: dto as never });
  }
}

/** `@AssociationBody(BatchCreateDto)`: the body, required, validated as the DTO (Swagger: add `@ApiBody`). */
export const AssociationBody = (dto: DtoClass): ParameterDecorator => rawBody(dto as never, new AssociationBodyPipe());
