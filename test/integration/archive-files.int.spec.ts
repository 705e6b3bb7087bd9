import { appendFileSync, existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RecordedEvent } from '../../src/platform/events/envelope';
import { ArchiveFiles } from '../../src/platform/archive/archive-files';

const event = (position: number): RecordedEvent => ({
  streamId: `s-${position}`,
  revision: 0,
  position,
  type: 't.A',
  data: { position },
  metadata: { eventId: `e-${position}`, correlationId: 'c', causationId: null, actor: 'a', occurredAt: position },
});

describe('archive files', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'hs-archive-files-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('appends segments to a file and reads each back against its SHA-256', () => {
    const files = new ArchiveFiles(dir);
    const a = files.appendSegment('events-2026-01-01.ndjson.gz', [event(1), event(2)]);
    const b = files.appendSegment('events-2026-01-01.ndjson.gz', [event(5)]);
    expect(b.offset).toBe(a.bytes);
    const entry = new ArchiveFiles(dir).manifest().files['events-2026-01-01.ndjson.gz']!;
    expect(entry).toMatchObject({ count: 3, firstPosition: 1, lastPosition: 5, bytes: a.bytes + b.bytes });
    expect(files.readSegment('events-2026-01-01.ndjson.gz', b)).toEqual([event(5)]);
    expect(files.verify()).toEqual({ files: 1, events: 3, problems: [] });
  });

  it('reconcile cuts bytes past the manifest and removes files it does not name; verify reports both first', () => {
    const files = new ArchiveFiles(dir);
    files.appendSegment('events-2026-01-01.ndjson.gz', [event(1)]);
    const path = join(files.dir, 'events-2026-01-01.ndjson.gz');
    const size = statSync(path).size;
    appendFileSync(path, Buffer.from('half a gzip member'));
    writeFileSync(join(files.dir, 'events-2026-01-02.ndjson.gz'), 'a batch that died before its manifest update');
    expect(files.verify().problems).toEqual([
      `events-2026-01-01.ndjson.gz: ${size + 18} bytes, manifest says ${size}`,
      'events-2026-01-02.ndjson.gz: not in the manifest',
    ]);
    expect(files.reconcile()).toEqual([
      'cut 18 unrecorded bytes off events-2026-01-01.ndjson.gz',
      'removed events-2026-01-02.ndjson.gz (not in the manifest)',
    ]);
    expect(existsSync(join(files.dir, 'events-2026-01-02.ndjson.gz'))).toBe(false);
    expect(files.verify()).toEqual({ files: 1, events: 1, problems: [] });
  });
});
