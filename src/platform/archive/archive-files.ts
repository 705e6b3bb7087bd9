import { createHash, type Hash } from 'node:crypto';
import {
  closeSync,
  existsSync,
  fstatSync,
  fsyncSync,
  ftruncateSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  renameSync,
  rmSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import type { RecordedEvent } from '../events/envelope';
import { fsyncPath } from '../fsync-path';
import {
  ARCHIVE_FILE_PATTERN,
  emptyManifest,
  parseManifest,
  type ArchiveFileEntry,
  type ArchiveManifest,
  type ArchiveSegment,
} from './archive-manifest';

/** Steps of an archive batch at which tests simulate kill -9 (see HistoryArchiver). */
export type ArchiveCrashPoint = 'segment-written' | 'manifest-saved' | 'recorded';

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

function readRange(path: string, offset: number, length: number): Buffer {
  const fd = openSync(path, 'r');
  try {
    const buffer = Buffer.alloc(length);
    let read = 0;
    while (read < length) {
      const n = readSync(fd, buffer, read, length - read, offset + read);
      if (n === 0) break;
      read += n;
    }
    return buffer.subarray(0, read);
  } finally {
    closeSync(fd);
  }
}

/**
 * The archive directory: append-only NDJSON files compressed with gzip (one member per batch) and
 * the manifest that makes them count. Order of a batch: the member is written and fsynced, then
 * the manifest is replaced atomically (temp file, fsync, rename, fsync of the directory). Bytes no
 * manifest names are not archive: `reconcile` cuts them off (their events are still live).
 */
export class ArchiveFiles {
  readonly dir: string;
  private cached: ArchiveManifest | null = null;
  /** SHA-256 state of files appended to by this process, so a batch hashes its own bytes only. */
  private readonly hashes = new Map<string, { bytes: number; hash: Hash }>();

  constructor(dataDir: string) {
    this.dir = join(dataDir, 'archive');
  }

  private get manifestPath(): string {
    return join(this.dir, 'manifest.json');
  }

  /** The manifest as on disk (empty when there is none yet). */
  manifest(): ArchiveManifest {
    if (this.cached) return this.cached;
    this.cached = existsSync(this.manifestPath)
      ? parseManifest(readFileSync(this.manifestPath, 'utf8'))
      : emptyManifest();
    return this.cached;
  }

  /** Re-reads the manifest (another process, e.g. the service, may have changed it). */
  reload(): ArchiveManifest {
    this.cached = null;
    return this.manifest();
  }

  /**
   * Appends events (in position order) as one gzip member of `file` and names it in the manifest.
   * `crash` is a test hook called after each durable step.
   */
  appendSegment(
    file: string,
    events: readonly RecordedEvent[],
    crash?: (step: ArchiveCrashPoint) => void,
  ): ArchiveSegment {
    if (events.length === 0) throw new Error('an archive segment needs events');
    mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    const manifest = this.manifest();
    const previous = manifest.files[file];
    const offset = previous?.bytes ?? 0;
    const member = gzipSync(Buffer.from(events.map((e) => JSON.stringify(e)).join('\n') + '\n', 'utf8'));
    const path = join(this.dir, file);
    const isNew = !existsSync(path);
    const fd = openSync(path, isNew ? 'w' : 'r+', 0o600);
    try {
      ftruncateSync(fd, offset); // whatever a crashed batch left past the manifest's end goes
      let written = 0;
      while (written < member.length)
        written += writeSync(fd, member, written, member.length - written, offset + written);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    if (isNew) fsyncPath(this.dir);
    crash?.('segment-written');
    const segment: ArchiveSegment = {
      offset,
      bytes: member.length,
      sha256: sha256(member),
      count: events.length,
      firstPosition: events[0]!.position,
      lastPosition: events[events.length - 1]!.position,
    };
    let state = this.hashes.get(file);
    if (!state || state.bytes !== offset) {
      state = { bytes: offset, hash: createHash('sha256').update(readRange(path, 0, offset)) };
      this.hashes.set(file, state);
    }
    state.hash.update(member);
    state.bytes += member.length;
    const entry: ArchiveFileEntry = {
      bytes: state.bytes,
      sha256: state.hash.copy().digest('hex'),
      count: (previous?.count ?? 0) + segment.count,
      firstPosition: Math.min(previous?.firstPosition ?? segment.firstPosition, segment.firstPosition),
      lastPosition: Math.max(previous?.lastPosition ?? segment.lastPosition, segment.lastPosition),
      segments: [...(previous?.segments ?? []), segment],
    };
    this.saveManifest({ ...manifest, files: { ...manifest.files, [file]: entry } });
    crash?.('manifest-saved');
    return segment;
  }

  private saveManifest(next: ArchiveManifest): void {
    const tmp = `${this.manifestPath}.tmp`;
    writeFileSync(tmp, JSON.stringify(next, null, 1), { mode: 0o600 });
    fsyncPath(tmp);
    renameSync(tmp, this.manifestPath);
    fsyncPath(this.dir);
    this.cached = next;
  }

  /** A segment's events, after checking its bytes against the manifest; throws when they differ. */
  readSegment(file: string, segment: ArchiveSegment): RecordedEvent[] {
    const bytes = readRange(join(this.dir, file), segment.offset, segment.bytes);
    if (bytes.length !== segment.bytes || sha256(bytes) !== segment.sha256) {
      throw new Error(`archive ${file} segment at ${segment.offset}: SHA-256 does not match the manifest`);
    }
    const lines = gunzipSync(bytes)
      .toString('utf8')
      .split('\n')
      .filter((l) => l !== '');
    const events = lines.map((l) => JSON.parse(l) as RecordedEvent);
    if (events.length !== segment.count) {
      throw new Error(
        `archive ${file} segment at ${segment.offset}: ${events.length} events, manifest says ${segment.count}`,
      );
    }
    return events;
  }

  /**
   * After a crash: bytes past the manifest's end of a file are cut off, files the manifest does
   * not name are removed (a batch that died before its manifest update; its events are still
   * live), and a half-written manifest temp file goes. Returns what was done, for the log.
   */
  reconcile(): string[] {
    if (!existsSync(this.dir)) return [];
    const done: string[] = [];
    const manifest = this.reload();
    rmSync(`${this.manifestPath}.tmp`, { force: true });
    for (const name of readdirSync(this.dir)) {
      if (!ARCHIVE_FILE_PATTERN.test(name)) continue;
      const entry = manifest.files[name];
      const path = join(this.dir, name);
      if (!entry) {
        rmSync(path);
        done.push(`removed ${name} (not in the manifest)`);
        continue;
      }
      const fd = openSync(path, 'r+');
      try {
        const size = fstatSync(fd).size;
        if (size > entry.bytes) {
          ftruncateSync(fd, entry.bytes);
          fsyncSync(fd);
          done.push(`cut ${size - entry.bytes} unrecorded bytes off ${name}`);
        }
      } finally {
        closeSync(fd);
      }
    }
    return done;
  }

  /**
   * Every file against the manifest: size, SHA-256 of the file and of each segment, event counts
   * and positions. Returns the problems found ([] when the archive is intact).
   */
  verify(): { files: number; events: number; problems: string[] } {
    const problems: string[] = [];
    let manifest: ArchiveManifest;
    try {
      manifest = this.reload();
    } catch (error) {
      return { files: 0, events: 0, problems: [error instanceof Error ? error.message : String(error)] };
    }
    let events = 0;
    for (const [name, entry] of Object.entries(manifest.files)) {
      const path = join(this.dir, name);
      if (!existsSync(path)) {
        problems.push(`${name}: missing`);
        continue;
      }
      const whole = readFileSync(path);
      if (whole.length !== entry.bytes) problems.push(`${name}: ${whole.length} bytes, manifest says ${entry.bytes}`);
      if (sha256(whole.subarray(0, entry.bytes)) !== entry.sha256) problems.push(`${name}: SHA-256 does not match`);
      let count = 0;
      for (const segment of entry.segments) {
        try {
          const read = this.readSegment(name, segment);
          const positions = read.map((e) => e.position);
          if (positions[0] !== segment.firstPosition || positions[positions.length - 1] !== segment.lastPosition) {
            problems.push(`${name} segment at ${segment.offset}: positions differ from the manifest`);
          }
          if (positions.some((p, i) => i > 0 && p <= positions[i - 1]!)) {
            problems.push(`${name} segment at ${segment.offset}: events out of order`);
          }
          count += read.length;
        } catch (error) {
          problems.push(error instanceof Error ? error.message : String(error));
        }
      }
      if (count !== entry.count) problems.push(`${name}: ${count} events readable, manifest says ${entry.count}`);
      events += count;
    }
    if (existsSync(this.dir)) {
      for (const name of readdirSync(this.dir)) {
        if (ARCHIVE_FILE_PATTERN.test(name) && !manifest.files[name]) problems.push(`${name}: not in the manifest`);
      }
    }
    return { files: Object.keys(manifest.files).length, events, problems };
  }
}
