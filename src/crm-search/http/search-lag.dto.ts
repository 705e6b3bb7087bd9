import { ApiProperty } from '@nestjs/swagger';
import { IsDefined, IsInt, Max, Min } from 'class-validator';
import { MAX_SEARCH_LAG_MS } from '../domain/search-lag';

const OUT_OF_RANGE = `searchLagMs must be an integer from 0 to ${MAX_SEARCH_LAG_MS}`;

/** The body of PUT /admin/v1/accounts/{hubId}/search-lag. */
export class SearchLagDto {
  @ApiProperty({ minimum: 0, maximum: MAX_SEARCH_LAG_MS, description: '0 turns the lag off' })
  @IsDefined()
  @IsInt({ message: OUT_OF_RANGE })
  @Min(0, { message: OUT_OF_RANGE })
  @Max(MAX_SEARCH_LAG_MS, { message: OUT_OF_RANGE })
  searchLagMs!: number;
}
