// Start-up with a long history: time from spawn until /health/ready answers 200.
import { performance } from 'node:perf_hooks';
import { existsSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { appendYearOfHistory, HistoryWriter } from './history.mjs';
import { sampleRss } from './processes.mjs';

export async function startup(service, events) {
  let began = performance.now();
  const writer = new HistoryWriter(service.dataDir);
  appendYearOfHistory(writer, { total: events });
  writer.close();
  const size = statSync(join(service.dataDir, 'events.sqlite')).size;
  console.log(
    `  (wrote ${events} events, ${(size / 1048576).toFixed(0)} MiB, in ${((performance.now() - began) / 1000).toFixed(1)} s)`,
  );

  const run = async (label) => {
    await service.start();
    const rss = sampleRss(service.pid);
    const ms = await service.ready();
    const peakRss = rss.stop();
    await service.stop();
    console.log(
      `  ${label.padEnd(44)} ready after ${(ms / 1000).toFixed(2)} s, peak RSS ${(peakRss / 1048576).toFixed(0)} MiB`,
    );
    return { seconds: ms / 1000, peakRss };
  };
  const readModels = join(service.dataDir, 'readmodels.sqlite');
  if (existsSync(readModels)) throw new Error('read models exist before the first start');
  const fromZero = await run('start-up, read models built from zero');
  const withCheckpoints = await run('start-up, read models at their checkpoints');
  // And once more from zero, to see the spread between two cold builds.
  for (const f of ['readmodels.sqlite', 'readmodels.sqlite-wal', 'readmodels.sqlite-shm']) {
    rmSync(join(service.dataDir, f), { force: true });
  }
  began = performance.now();
  const fromZeroAgain = await run('start-up, read models built from zero (again)');
  return { events, fromZero, withCheckpoints, fromZeroAgain };
}
