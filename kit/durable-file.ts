/** Durable local files of the embedded default: a journal of keyed records (append + fsync) and a snapshot file (temp + rename). */
import { closeSync, fsyncSync, openSync, readFileSync, renameSync, writeSync } from 'node:fs';
import { open, rename, type FileHandle } from 'node:fs/promises';
import { basename, dirname } from 'node:path';
import { crc32 } from 'node:zlib';

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

/** A journal line's record: a put or a delete, numbered when appended; a snapshot starts with `{n}` alone. */
type JournalLine<T> = { n?: number; k: string; v: T } | { n?: number; k: string; d: 1 } | { n: number };

/** The journal is rewritten as a snapshot of the live records once it holds this many lines more than them. */
const COMPACT_SLACK = 10_000;

/**
 * One line per change, `<crc32 of the JSON, 8 hex digits> <JSON>`, each numbered (`n`), appended and fdatasync-ed
 * before `flush()` resolves (callers that flush together share one sync: a group commit). After each sync the number of
 * the last line on disk goes to the journal's seal (`<journal>.seal`): a journal that ends before its seal's number was
 * cut or emptied, and the start refuses it (`checkJournal`). A kill can tear only the lines of the last write, which
 * were never acknowledged: the replay drops them. At open, and whenever the journal has grown well past its live
 * records, it is rewritten as those records alone (temp file, fsync, rename), after a line holding the last number.
 */
export class RecordJournal<T> implements RecordStore<T> {
  private readonly live = new Map<string, T>();
  private readonly replayed: Map<string, T>;
  private handle: Promise<FileHandle>;
  private buffer: string[] = [];
  private lines = 0;
  /** The number of the last line appended (buffered or written). */
  private seq: number;
  private readonly seal: JournalSeal;
  /** The write in progress, and the one queued behind it (which takes every line buffered until it starts). */
  private writing: Promise<void> = Promise.resolve();
  private queued: Promise<void> | null = null;

  constructor(private readonly path: string) {
    const read = readJournal<T>(path);
    if (read.damaged.length > 0) throw new DataDamaged(journalDamage(path, read));
    for (const [key, record] of read.records) this.live.set(key, record);
    this.replayed = new Map(this.live);
    this.seal = new JournalSeal(path);
    const sealed = this.seal.read() ?? 0;
    if (sealed > read.lastSeq) throw new DataDamaged(journalCut(path, read.lastSeq, sealed));
    this.seq = read.lastSeq;
    writeSnapshot(path, snapshotText(this.live, this.seq));
    this.seal.write(this.seq);
    this.lines = this.live.size;
    this.handle = open(path, 'a');
  }

  loaded(): Map<string, T> {
    return new Map(this.replayed);
  }

  put(key: string, record: T): void {
    this.live.set(key, record);
    this.append({ n: ++this.seq, k: key, v: record });
  }

  delete(key: string): void {
    if (!this.live.delete(key)) return;
    this.append({ n: ++this.seq, k: key, d: 1 });
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
    this.seal.close();
  }

  private append(line: JournalLine<T>): void {
    this.buffer.push(framed(line));
    this.lines += 1;
  }

  private async write(): Promise<void> {
    if (this.lines > this.live.size + COMPACT_SLACK) return this.compact();
    const text = this.buffer.join('');
    const last = this.seq;
    this.buffer = [];
    if (text === '') return;
    const handle = await this.handle;
    await handle.appendFile(text);
    await handle.datasync();
    this.seal.write(last);
  }

  /** Rewrites the journal as its live records; the lines buffered so far are in that snapshot. */
  private async compact(): Promise<void> {
    this.buffer = [];
    const last = this.seq;
    const text = snapshotText(this.live, last);
    this.lines = this.live.size;
    const old = await this.handle;
    await writeSnapshotAsync(this.path, text);
    this.handle = open(this.path, 'a');
    await old.close();
    this.seal.write(last);
  }
}

/** A damaged file of the data folder: the message names the file, what is wrong with it, and what to do. */
export class DataDamaged extends Error {}

function framed(line: unknown): string {
  const json = JSON.stringify(line);
  return `${crc32(json).toString(16).padStart(8, '0')} ${json}\n`;
}

/** A journal rewritten as its live records, after a line holding the last number. */
export function snapshotText<T>(live: Map<string, T>, seq: number): string {
  return framed({ n: seq }) + [...live].map(([k, v]) => framed({ k, v })).join('');
}

/** What a journal holds, read line by line. */
export interface JournalRead<T> {
  records: Map<string, T>;
  /** The highest line number found (0 for a journal written before lines were numbered). */
  lastSeq: number;
  /** Lines that fail their checksum or do not parse, with a good line after them: damage, not a kill. */
  damaged: Array<{ line: number; reason: string }>;
  /** Lines at the end that fail: the last write, torn by a kill before it was acknowledged. */
  torn: number;
  /** Whether the file exists. */
  exists: boolean;
}

/**
 * The records a journal holds: its lines applied in order. Bad lines at the end are a torn last write (dropped: it was
 * never acknowledged); a bad line with a good one after it is damage. Lines without a checksum (journals written
 * before lines had one) are taken as they are.
 */
export function readJournal<T>(path: string): JournalRead<T> {
  const records = new Map<string, T>();
  const read: JournalRead<T> = { records, lastSeq: 0, damaged: [], torn: 0, exists: true };
  const text = readIfPresent(path);
  if (text === null) return { ...read, exists: false };
  let bad: Array<{ line: number; reason: string }> = [];
  const lines = text.split('\n');
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index];
    if (line === '') continue;
    const parsed = parseLine<T>(line);
    if (typeof parsed === 'string') {
      bad.push({ line: index + 1, reason: parsed });
      continue;
    }
    read.damaged.push(...bad);
    bad = [];
    if (parsed.n !== undefined) read.lastSeq = Math.max(read.lastSeq, parsed.n);
    if (!('k' in parsed)) continue;
    if ('d' in parsed) records.delete(parsed.k);
    else records.set(parsed.k, parsed.v);
  }
  read.torn = bad.length;
  return read;
}

/** A line's record, or why it is bad. */
function parseLine<T>(line: string): JournalLine<T> | string {
  const legacy = line.startsWith('{');
  const json = legacy ? line : line.slice(9);
  if (!legacy) {
    if (!/^[0-9a-f]{8} /.test(line)) return 'it does not start with a checksum';
    if (crc32(json).toString(16).padStart(8, '0') !== line.slice(0, 8)) return 'its checksum does not match its text';
  }
  try {
    const parsed = JSON.parse(json) as JournalLine<T>;
    if (parsed === null || typeof parsed !== 'object') return 'it is not a record';
    return parsed;
  } catch {
    return 'it is not JSON';
  }
}

/** The one-paragraph refusal for a damaged journal. */
export function journalDamage(path: string, read: JournalRead<unknown>): string {
  const first = read.damaged[0];
  const more = read.damaged.length > 1 ? ` (and ${read.damaged.length - 1} more line${read.damaged.length > 2 ? 's' : ''})` : '';
  return `the journal ${path} is damaged: line ${first.line}${more} ${first.reason}, and good lines follow it, so it is `
    + 'not the torn end a kill leaves. Restore the data folder from a backup, start with --repair to drop the damaged '
    + 'lines (each is a record Holdback had acknowledged: it is printed as lost), or start with --fresh to start empty.';
}

/** The one-paragraph refusal for a journal that ends before its seal. */
export function journalCut(path: string, last: number, sealed: number): string {
  const lost = sealed - last;
  return `the journal ${path} was cut short or emptied: it ends at line number ${last}, but ${sealed} lines had been `
    + `written to disk and acknowledged (its seal ${basename(path)}.seal says so), so ${lost} acknowledged change${lost === 1 ? ' is' : 's are'} `
    + 'missing. Restore the data folder from a backup, start with --repair to carry on with what the journal still '
    + 'holds (the missing changes are lost), or start with --fresh to start empty.';
}

/**
 * The number of a journal's last line known to be on disk, in `<journal>.seal`: 32 bytes (`written <n> <crc32>`)
 * rewritten in place after each sync. It is written after the journal's own sync, so it never runs ahead of the
 * journal: a journal whose lines end before it lost lines that had been acknowledged.
 */
export class JournalSeal {
  private fd: number | null = null;
  readonly path: string;

  constructor(journal: string) {
    this.path = `${journal}.seal`;
  }

  /** The sealed number; null when there is no seal; throws DataDamaged when the seal itself is damaged. */
  read(): number | null {
    const text = readIfPresent(this.path);
    if (text === null) return null;
    const n = parseSeal(text);
    if (n === null) {
      throw new DataDamaged(`the seal ${this.path} is damaged (it should read "written <n> <checksum>"; it reads `
        + `${JSON.stringify(text.slice(0, 40))}): it records how much of ${basename(this.path.slice(0, -5))} was on `
        + 'disk, so the journal cannot be checked. Restore the data folder from a backup, start with --repair to '
        + 'take the journal as it stands, or start with --fresh to start empty.');
    }
    return n;
  }

  /** The first write makes the file whole (temp file and rename: a kill never leaves it empty); later ones rewrite it in place. */
  write(n: number): void {
    const text = sealLine(n);
    if (this.fd === null) {
      writeSnapshot(this.path, text);
      this.fd = openSync(this.path, 'r+');
      return;
    }
    writeSync(this.fd, Buffer.from(text), 0, text.length, 0);
  }

  close(): void {
    if (this.fd !== null) closeSync(this.fd);
    this.fd = null;
  }
}

const SEAL_BYTES = 40;

/** `written <n> <crc32 of "written <n>">`: the format of every seal in the data folder (the tables' too). */
export function sealText(n: number): string {
  const text = `written ${n}`;
  return `${text} ${crc32(text).toString(16).padStart(8, '0')}`;
}

/** A seal's whole content: `sealText` padded to a fixed length, so that each rewrite in place covers the last. */
export function sealLine(n: number): string {
  return `${sealText(n).padEnd(SEAL_BYTES - 1, ' ')}\n`;
}

export function parseSeal(text: string): number | null {
  const match = /^written (\d+) ([0-9a-f]{8}) *\n?$/.exec(text);
  if (!match || sealText(Number(match[1])) !== `written ${match[1]} ${match[2]}`) return null;
  return Number(match[1]);
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
