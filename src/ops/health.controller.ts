import { Controller, Get, Inject, Res, ServiceUnavailableException } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { HealthCheckService, HealthIndicatorService } from '@nestjs/terminus';
import type { FastifyReply } from 'fastify';
import { processFaults } from '../platform/core/process-faults';
import { EVENT_STORE, EventStore } from '../platform/event-store/event-store.port';
import { storageDamage } from '../platform/event-store/storage-fault';
import { ProjectionRunner } from '../platform/projections/projection-runner';

/** Liveness: the process answers. Readiness: the store answers and every projection is caught up. */
@ApiExcludeController()
@Controller('health')
export class HealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly indicators: HealthIndicatorService,
    @Inject(EVENT_STORE) private readonly store: EventStore,
    private readonly runner: ProjectionRunner,
  ) {}

  // Nothing about the process (no PID): these answer anyone, unauthenticated.
  @Get('live')
  live() {
    return this.health.check([() => this.indicators.check('process').up()]);
  }

  @Get('ready')
  async ready(@Res() reply: FastifyReply): Promise<void> {
    try {
      const result = await this.health.check([
        () =>
          this.indicators
            .check('eventStore')
            .attempt(async () => {
              // A damaged page met by any read or write: not ready until the file is restored.
              const damage = storageDamage.reason();
              if (damage !== null) throw new Error(`a data file is damaged (${damage})`);
              await this.store.ping();
              return { kind: this.store.kind };
            })
            .withTimeout(2000),
        () => {
          const fault = processFaults.reason();
          const session = this.indicators.check('process');
          return fault === null ? session.up() : session.down({ reason: fault });
        },
        async () => {
          const lag = await this.runner.lag();
          const status = this.runner.status();
          const failed = status.filter((s) => s.status === 'failed');
          // Reactors (process managers) may trail the head by design; read models may not.
          const projections = new Set(status.filter((s) => s.kind === 'projection').map((s) => s.name));
          const behind = Object.entries(lag).filter(([name, n]) => n > 0 && projections.has(name));
          const session = this.indicators.check('projections');
          return failed.length === 0 && behind.length === 0
            ? session.up({ lag })
            : session.down({
                lag,
                failed: failed.map((f) => f.name),
                ...(failed.length > 0
                  ? { reasons: Object.fromEntries(failed.map((f) => [f.name, f.error ?? ''])) }
                  : {}),
              });
        },
      ]);
      await reply.status(200).send(result);
    } catch (error) {
      if (error instanceof ServiceUnavailableException) await reply.status(503).send(error.getResponse());
      else throw error;
    }
  }
}
