import { Inject, Injectable, type OnModuleDestroy } from '@nestjs/common';
import type Database from 'better-sqlite3';
import { Worker } from 'node:worker_threads';
import { READ_MODEL_DB } from '../../platform/projections/read-model-database';
import type { SearchJob } from './search-compiler';
import { answerSearchJob, runSearchJob, type SearchPage, shapeSearchResults } from './search-reader';

/** The search thread: its own read-only connection to the read-model file; answers each message with answerSearchJob. */
const SEARCH_THREAD_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driverPath);
const runSearchJob = ${runSearchJob.toString()};
const shapeSearchResults = ${shapeSearchResults.toString()};
const answerSearchJob = ${answerSearchJob.toString()};
const db = new Database(workerData.file, { readonly: true, fileMustExist: true });
db.pragma('busy_timeout = 5000');
// A search sorts and sets aside thousands of ids: in memory, not in temporary files; the indexes it
// walks stay in its own page cache and the mapped file rather than one read() per page.
db.pragma('temp_store = MEMORY');
db.pragma('cache_size = -32768');
db.pragma('mmap_size = 268435456');
// Read and parse the file's schema before the first job's statement needs it.
db.prepare('SELECT count(*) FROM sqlite_master').get();
parentPort.on('message', (message) => {
  if (message.close) {
    db.close();
    parentPort.postMessage({ closed: true });
    return;
  }
  try {
    parentPort.postMessage({ id: message.id, page: answerSearchJob(db, message.job) });
  } catch (error) {
    parentPort.postMessage({ id: message.id, error: String(error && error.message || error) });
  }
});
`;

interface Pending {
  resolve: (page: SearchPage) => void;
  reject: (error: Error) => void;
}

/**
 * Runs searches off the event loop: a worker thread with its own read-only connection to the
 * read-model file (WAL: it reads the last committed state while the projections write), so a heavy
 * search never delays a token grant. Searches queue on the one thread in arrival order. The thread is
 * started by the first search, which pays for it once (~40 ms: a thread, the driver, the connection,
 * the schema): started at boot instead, the idle thread cost every process ~12 MiB of RSS, searching
 * or not (measured; issue 36's records bench, which never searches, sits near its 256 MiB ceiling).
 * It is held referenced only while searches are in flight. A read model in memory (some tests) has no
 * file another connection could open: searches then run in-process.
 */
@Injectable()
export class SearchExecutor implements OnModuleDestroy {
  private worker?: Worker;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;

  constructor(@Inject(READ_MODEL_DB) private readonly db: Database.Database) {}

  /** Whether searches run on the search thread (a read model in a file) or in-process (in memory). */
  get threaded(): boolean {
    return !this.db.memory;
  }

  /** The search thread's id once started (for tests and diagnostics). */
  get threadId(): number | undefined {
    return this.worker?.threadId;
  }

  run(job: SearchJob): Promise<SearchPage> {
    if (this.db.memory) {
      try {
        return Promise.resolve(answerSearchJob(this.db, job));
      } catch (error) {
        return Promise.reject(error instanceof Error ? error : new Error(String(error)));
      }
    }
    const worker = this.thread();
    const id = this.nextId++;
    return new Promise<SearchPage>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      if (this.pending.size === 1) worker.ref();
      worker.postMessage({ id, job });
    });
  }

  private thread(): Worker {
    if (this.worker) return this.worker;
    const worker = new Worker(SEARCH_THREAD_SOURCE, {
      eval: true,
      workerData: { file: this.db.name, driverPath: require.resolve('better-sqlite3') },
    });
    worker.unref();
    worker.on('message', (reply: { id: number; page?: SearchPage; error?: string }) => {
      const waiting = this.pending.get(reply.id);
      if (!waiting) return;
      this.pending.delete(reply.id);
      if (this.pending.size === 0) worker.unref();
      if (reply.error !== undefined) waiting.reject(new Error(`search failed: ${reply.error}`));
      else waiting.resolve(reply.page!);
    });
    const died = (error: Error) => {
      if (this.worker !== worker) return;
      this.worker = undefined; // the next search starts a new thread
      for (const p of this.pending.values()) p.reject(error);
      this.pending.clear();
    };
    worker.on('error', died);
    worker.on('exit', (code) => died(new Error(`the search thread exited with code ${code}`)));
    this.worker = worker;
    return worker;
  }

  async onModuleDestroy(): Promise<void> {
    const worker = this.worker;
    this.worker = undefined;
    if (!worker) return;
    for (const p of this.pending.values()) p.reject(new Error('shutting down'));
    this.pending.clear();
    await worker.terminate();
  }
}
