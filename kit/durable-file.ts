/** Durable local files of the embedded default: a journal of keyed records (append + fsync) and a snapshot file (temp + rename). */
import { closeSync, fsyncSync, openSync, readFileSync, renameSync, writeSync } from 'node:fs';
import { open, rename, type FileHandle } from 'node:fs/promises';
import { dirname } from 'node:path';

/**
 * Keyed records that must survive the process: what a local AWS service has acknowledged and not yet finished (a
 * pending schedule, an event not yet delivered, a queued message). The in-memory store keeps nothing, for tests and
 * the bench; the journal keeps every change on disk before `flush()` resolves.
 */
export interface RecordStore<T> {
  /** The records stored when the process started (the journal's replay); empty in memory. */
  loaded(): Map<string, T>;
  put(key: string, record: T): void;
  delete(key: string): void;
  /** Resolves once every put and delete made before the call is on disk: await it before acknowledging. */
  flush(): Promise<void>;
  close(): Promise<void>;
}

/** Keeps nothing: the runtime started without a data folder. */
export class MemoryRecords<T> implements RecordStore<T> {
  loaded(): Map<string, T> {
    return new Map();
  }
  put(): void {}
  delete(): void {}
  async flush(): Promise<void> {}
  async close(): Promise<void> {}
}

type JournalLine<T> = { k: string; v: T } | { k: string; d: 1 };

/** The journal is rewritten as a snapshot of the live records once it holds this many lines more than them. */
const COMPACT_SLACK = 10_000;

/**
 * One JSON line per change, appended and fdatasync-ed before `flush()` resolves (callers that flush together share
 * one sync: a group commit). A kill can tear only the last line, which the replay ignores. At open, and whenever the
 * journal has grown well past its live records, it is rewritten as those records alone (temp file, fsync, rename).
 */
export class RecordJournal<T> implements RecordStore<T> {
  private readonly live = new Map<string, T>();
  private readonly replayed: Map<string, T>;
  private handle: Promise<FileHandle>;
  private buffer: string[] = [];
  private lines = 0;
  /** The write in progress, and the one queued behind it (which takes every line buffered until it starts). */
  private writing: Promise<void> = Promise.resolve();
  private queued: Promise<void> | null = null;

  constructor(private readonly path: string) {
    for (const [key, record] of replay<T>(path)) this.live.set(key, record);
    this.replayed = new Map(this.live);
    writeSnapshot(path, [...this.live].map(([k, v]) => `${JSON.stringify({ k, v })}\n`).join(''));
    this.lines = this.live.size;
    this.handle = open(path, 'a');
  }

  loaded(): Map<string, T> {
    return new Map(this.replayed);
  }

  put(key: string, record: T): void {
    this.live.set(key, record);
    this.append({ k: key, v: record });
  }

  delete(key: string): void {
    if (!this.live.delete(key)) return;
    this.append({ k: key, d: 1 });
  }

  flush(): Promise<void> {
    if (this.buffer.length === 0) return this.writing;
    if (this.queued) return this.queued;
    const queued = this.writing.then(() => {
      this.queued = null;
      return this.write();
    });
    this.queued = queued;
    this.writing = queued.catch(() => undefined);
    return queued;
  }

  async close(): Promise<void> {
    await this.flush().catch(() => undefined);
    await (await this.handle).close();
  }

  private append(line: JournalLine<T>): void {
    this.buffer.push(`${JSON.stringify(line)}\n`);
    this.lines += 1;
  }

  private async write(): Promise<void> {
    if (this.lines > this.live.size + COMPACT_SLACK) return this.compact();
    const text = this.buffer.join('');
    this.buffer = [];
    if (text === '') return;
    const handle = await this.handle;
    await handle.appendFile(text);
    await handle.datasync();
  }

  /** Rewrites the journal as its live records; the lines buffered so far are in that snapshot. */
  private async compact(): Promise<void> {
    this.buffer = [];
    const text = [...this.live].map(([k, v]) => `${JSON.stringify({ k, v })}\n`).join('');
    this.lines = this.live.size;
    const old = await this.handle;
    await writeSnapshotAsync(this.path, text);
    this.handle = open(this.path, 'a');
    await old.close();
  }
}

/** The records a journal holds: its lines applied in order, a torn last line ignored. */
function replay<T>(path: string): Map<string, T> {
  const records = new Map<string, T>();
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return records;
    throw error;
  }
  for (const line of text.split('\n')) {
    if (line === '') continue;
    let parsed: JournalLine<T>;
    try {
      parsed = JSON.parse(line) as JournalLine<T>;
    } catch {
      continue; // the line a kill cut short: it was never acknowledged
    }
    if ('d' in parsed) records.delete(parsed.k);
    else records.set(parsed.k, parsed.v);
  }
  return records;
}

/** Writes `text` to a temporary file, syncs it, renames it over `path` and syncs the folder: all or nothing. */
export function writeSnapshot(path: string, text: string): void {
  const temp = `${path}.tmp`;
  const fd = openSync(temp, 'w');
  try {
    writeSync(fd, text);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(temp, path);
  syncFolder(path);
}

/** `writeSnapshot` off the main thread's time (the file system's thread pool does the writing and syncing). */
export async function writeSnapshotAsync(path: string, text: string): Promise<void> {
  const temp = `${path}.tmp`;
  const handle = await open(temp, 'w');
  try {
    await handle.writeFile(text);
    await handle.sync();
  } finally {
    await handle.close();
  }
  await rename(temp, path);
  const folder = await open(dirname(path), 'r');
  try {
    await folder.sync();
  } finally {
    await folder.close();
  }
}

function syncFolder(path: string): void {
  const fd = openSync(dirname(path), 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** The file's text, or null when it does not exist. */
export function readIfPresent(path: string): string | null {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}

/**
 * A whole-state snapshot saved with group commit: `save()` resolves once a snapshot taken after the call is on disk;
 * callers that save while a write is running share the next one. `take` is read when each write starts; a snapshot
 * equal to the last one written is not written again (the periodic saves of an idle state, a request that changed
 * nothing), so no file is rewritten and synced for nothing.
 */
export class SnapshotFile {
  private writing: Promise<void> = Promise.resolve();
  private queued: Promise<void> | null = null;
  private written: string | null = null;

  constructor(readonly path: string, private readonly take: () => string) {}

  save(): Promise<void> {
    if (this.queued) return this.queued;
    const queued = this.writing.then(async () => {
      this.queued = null;
      const text = this.take();
      if (text === this.written) return;
      await writeSnapshotAsync(this.path, text);
      this.written = text;
    });
    this.queued = queued;
    this.writing = queued.catch(() => undefined);
    return queued;
  }
}
