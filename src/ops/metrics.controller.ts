import { Controller, Get, Header } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { ProjectionRunner } from '../platform/projections/projection-runner';
import { Metrics } from '../platform/metrics/metrics';
import { Authenticated } from '../platform/http/authentication';

@ApiExcludeController()
@Controller('metrics')
@Authenticated({ by: 'metrics' })
export class MetricsController {
  constructor(
    private readonly metrics: Metrics,
    private readonly runner: ProjectionRunner,
  ) {}

  @Get()
  @Header('content-type', 'text/plain; version=0.0.4; charset=utf-8')
  async scrape(): Promise<string> {
    for (const [name, lag] of Object.entries(await this.runner.lag()))
      this.metrics.projectionLag.set({ projection: name }, lag);
    return this.metrics.registry.metrics();
  }
}
