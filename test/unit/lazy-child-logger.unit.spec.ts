import pino from 'pino';
import { Writable } from 'node:stream';
import { LazyChildLogger, lazyChildLoggerFactory } from '../../src/platform/logging/lazy-child-logger';

function capture(level: string) {
  const lines: Array<Record<string, unknown>> = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, cb) {
      lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
      cb();
    },
  });
  const logger = pino({ level, base: undefined }, stream);
  return { logger, lines };
}

describe('lazy per-request child logger', () => {
  it('makes no child while nothing is logged at an enabled level', () => {
    const { logger } = capture('warn');
    const child = jest.spyOn(logger, 'child');
    const lazy = new LazyChildLogger(logger, { correlationId: 'c-1' }, {});
    lazy.info('not logged at warn');
    lazy.debug({ x: 1 }, 'nor this');
    expect(child).not.toHaveBeenCalled();
  });

  it('logs what an eager child logs, bindings included, and makes the child once', () => {
    const { logger, lines } = capture('info');
    const child = jest.spyOn(logger, 'child');
    const lazy = lazyChildLoggerFactory(logger, { correlationId: 'c-2' }, {});
    lazy.warn({ k: 'v' }, 'first');
    lazy.error('second');
    lazy.debug('below the level');
    expect(child).toHaveBeenCalledTimes(1);
    expect(lines.map((l) => [l.level, l.msg, l.correlationId, l.k])).toEqual([
      [40, 'first', 'c-2', 'v'],
      [50, 'second', 'c-2', undefined],
    ]);
  });

  it('answers level questions and nests children', () => {
    const { logger, lines } = capture('info');
    const lazy = new LazyChildLogger(logger, { correlationId: 'c-3' }, {});
    expect(lazy.level).toBe('info');
    expect(lazy.isLevelEnabled('debug')).toBe(false);
    lazy.child({ step: 2 }).info('nested');
    expect(lines[0]).toMatchObject({ msg: 'nested', correlationId: 'c-3', step: 2 });
    expect(lazy.bindings()).toEqual({ correlationId: 'c-3' });
  });
});
