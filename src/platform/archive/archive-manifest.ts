/**
 * What DATA_DIR/archive/manifest.json says about the archive: per file (one per UTC day of the
 * archived events), its size, SHA-256, event count and position range, and every segment (one
 * per archive batch, a gzip member appended to the file) with the same facts. A byte of a file
 * beyond `bytes` is not part of the archive (a batch that crashed before the manifest named it).
 */
export interface ArchiveSegment {
  offset: number;
  bytes: number;
  sha256: string;
  count: number;
  firstPosition: number;
  lastPosition: number;
}

export interface ArchiveFileEntry {
  bytes: number;
  sha256: string;
  count: number;
  firstPosition: number;
  lastPosition: number;
  segments: ArchiveSegment[];
}

export interface ArchiveManifest {
  version: 1;
  files: Record<string, ArchiveFileEntry>;
}

export const emptyManifest = (): ArchiveManifest => ({ version: 1, files: {} });

/** The name a segment is recorded under (in ops.HistoryArchived). */
export const segmentKey = (file: string, offset: number) => `${file}@${offset}`;

/** Archive file of a UTC day: `events-2026-11-22.ndjson.gz`. */
export const archiveFileName = (occurredAt: number) =>
  `events-${new Date(occurredAt).toISOString().slice(0, 10)}.ndjson.gz`;

export const ARCHIVE_FILE_PATTERN = /^events-\d{4}-\d{2}-\d{2}\.ndjson\.gz$/;

/** Checks the shape of a parsed manifest; throws with what is wrong. */
export function parseManifest(text: string): ArchiveManifest {
  const m = JSON.parse(text) as ArchiveManifest;
  if (m === null || typeof m !== 'object' || m.version !== 1 || typeof m.files !== 'object' || m.files === null) {
    throw new Error('archive manifest: not a version 1 manifest');
  }
  for (const [name, f] of Object.entries(m.files)) {
    if (!ARCHIVE_FILE_PATTERN.test(name) || !Array.isArray(f.segments)) {
      throw new Error(`archive manifest: bad entry ${name}`);
    }
  }
  return m;
}

/** Segments of every file whose position range meets [from, to], in order of their first position. */
export function segmentsBetween(
  manifest: ArchiveManifest,
  from: number,
  to: number,
): Array<{ file: string; segment: ArchiveSegment }> {
  const out: Array<{ file: string; segment: ArchiveSegment }> = [];
  for (const [file, entry] of Object.entries(manifest.files)) {
    for (const segment of entry.segments) {
      if (segment.lastPosition >= from && segment.firstPosition <= to) out.push({ file, segment });
    }
  }
  return out.sort((a, b) => a.segment.firstPosition - b.segment.firstPosition);
}
