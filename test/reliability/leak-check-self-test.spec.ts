import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  ensureBuilt,
  GC_HOOK_NODE_OPTIONS,
  inPool,
  memoryAfterGc,
  rawRequest,
  startReliabilityService,
  stopService,
  type MemoryAfterGc,
} from '../support/reliability-service';
import { memoryVerdicts } from '../support/sweep-memory-series';
import { TEST_ADMIN_KEY } from '../support/test-app';

/**
 * The bad-input sweep's memory check must be able to fail. This runs the real service with a
 * deliberate leak preloaded (reliability-leak-hook.cjs: every request keeps some bytes forever),
 * drives it the way the sweep does (a warm-up, then memory after a full GC every 500 requests) and
 * expects the sweep's own series and bounds to call it a leak, series by series. The leaks are a
 * few times the bounds, the size of a request's worth of state kept by mistake (a cached body, a
 * listener per connection), not megabytes that any check would see.
 */
jest.setTimeout(300_000);

const WARM_UP = 1000;
/** The fewest that leave LEAK_WINDOWS windows of two intervals each after the settling sample. */
const REQUESTS = 3500;
const SAMPLE_EVERY = 500;
const LEAK_HOOK = join(__dirname, '..', 'support', 'reliability-leak-hook.cjs');

async function sweepMemory(leak: { heapBytes: number; bufferBytes: number }) {
  const dataDir = mkdtempSync(join(tmpdir(), 'hs-rel-leak-'));
  const service = await startReliabilityService({
    DATA_DIR: dataDir,
    SEED: 'none',
    ADMIN_API_KEY: TEST_ADMIN_KEY,
    RATE_LIMIT_ENABLED: 'false',
    NODE_OPTIONS: `${GC_HOOK_NODE_OPTIONS} --require ${LEAK_HOOK}`,
    LEAK_HOOK_HEAP_BYTES: String(leak.heapBytes),
    LEAK_HOOK_BUFFER_BYTES: String(leak.bufferBytes),
  });
  try {
    const request = Buffer.from('GET /health/live HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n');
    const send = async () => {
      const r = await rawRequest(service.port, request);
      if (r.status !== 200) throw new Error(`GET /health/live answered ${r.status}`);
    };
    const batch = (count: number) => inPool(Array.from({ length: count }), 8, send);
    await batch(WARM_UP);
    const samples: Array<{ requests: number; memory: MemoryAfterGc }> = [
      { requests: 0, memory: await memoryAfterGc(service) },
    ];
    for (let done = SAMPLE_EVERY; done <= REQUESTS; done += SAMPLE_EVERY) {
      await batch(SAMPLE_EVERY);
      samples.push({ requests: done, memory: await memoryAfterGc(service) });
    }
    const verdicts = memoryVerdicts(samples);
    process.stdout.write(
      `leak injected (${leak.heapBytes} B of strings, ${leak.bufferBytes} B Buffer per request); bytes per request by window:\n` +
        verdicts
          .map(
            (v) =>
              `  ${v.name}: ${v.windowSlopes.map((x) => x.toFixed(0)).join(' / ')} (bound ${v.maxBytesPerRequest})${v.leaks ? '  LEAK' : ''}\n`,
          )
          .join(''),
    );
    return Object.fromEntries(verdicts.map((v) => [v.name, v.leaks]));
  } finally {
    await stopService(service);
    rmSync(dataDir, { recursive: true, force: true });
  }
}

describe("the bad-input sweep's memory check catches a real leak", () => {
  beforeAll(() => ensureBuilt());

  it('2 KiB of JS strings kept per request (4× the heap bound): "heap used" leaks', async () => {
    expect(await sweepMemory({ heapBytes: 2048, bufferBytes: 0 })).toMatchObject({ 'heap used': true });
  });

  it('an 8 KiB Buffer kept per request (4× the external bound): "external" and "outside V8 heap" leak', async () => {
    expect(await sweepMemory({ heapBytes: 0, bufferBytes: 8192 })).toMatchObject({
      external: true,
      'outside V8 heap': true,
    });
  });
});
