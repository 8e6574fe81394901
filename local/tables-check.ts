/**
 * The check of the data folder's tables (dynalite's LevelDB folder) before dynalite opens them: LevelDB's own
 * checksums on its log and MANIFEST, its open and a read of every item (which reads every table file), and the count
 * of acknowledged writes against the tables' seal, so that a log cut short or emptied is refused instead of rolling the
 * state back. With `repair`, LevelDB's own repair is run instead of refusing, and what was lost is printed.
 */
import { existsSync, linkSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';
import { ClassicLevel } from 'classic-level';
import { DataDamaged, parseSeal, readIfPresent, sealLine, writeSnapshot } from '../kit/durable-file';

/**
 * Every write to the tables also puts its number under one of these keys (slot = number mod SLOTS), in the same
 * LevelDB batch: the largest number found is the last write the tables hold, whatever order concurrent writes were
 * applied in (a slot is reused only SLOTS writes later). dynalite's own keys all start with a letter.
 */
export const WRITTEN_KEY_PREFIX = '\u0001holdback~written~';
export const WRITTEN_SLOTS = 4096;

/** What the check found: the number of the last acknowledged write the tables hold, and what a repair lost. */
export interface TablesChecked {
  written: number;
  account: string[];
}

const LEVELDB_FILE = /^(\d{6}\.(log|ldb|sst)|MANIFEST-\d+|CURRENT)$/;

/** Whether LevelDB files hold any write: a table file, or a log with anything in it. */
function holdsWrites(dir: string, files: string[]): boolean {
  return files.some((name) => /\.(ldb|sst)$/.test(name) || (name.endsWith('.log') && statSync(join(dir, name)).size > 0));
}

/** Refused unless `repair`: then repaired, and the account says what was lost. */
export async function checkTables(dir: string, sealPath: string, opts: { repair?: boolean } = {}): Promise<TablesChecked> {
  const sealText = readIfPresent(sealPath);
  const sealed = sealText === null ? null : parseSeal(sealText);
  const account: string[] = [];
  const problem = (message: string): void => {
    if (!opts.repair) throw new DataDamaged(`${message} ${REMEDY}`);
    account.push(message);
  };
  if (sealText !== null && sealed === null) {
    problem(`the tables' seal ${sealPath} is damaged (it reads ${JSON.stringify(sealText.slice(0, 40))}): it records how many acknowledged writes ${dir} holds, so the tables cannot be checked.`);
  }
  const files = existsSync(dir) ? readdirSync(dir).filter((name) => LEVELDB_FILE.test(name)) : [];
  if (files.length === 0) {
    if ((sealed ?? 0) > 0) problem(`the tables folder ${dir} is missing or empty, but ${sealed} writes to it had been acknowledged (${basename(sealPath)} says so).`);
    return finish(dir, sealPath, 0, account, opts.repair);
  }
  if (!files.includes('CURRENT') && !holdsWrites(dir, files) && (sealed ?? 0) === 0) {
    // A kill while LevelDB was creating the database, before it wrote CURRENT: no write can have happened yet (CURRENT
    // comes before the first log), so nothing was acknowledged. Its half-made files are removed and it starts empty.
    for (const name of files) rmSync(join(dir, name), { force: true });
    return finish(dir, sealPath, 0, account, opts.repair);
  }
  if (!files.includes('CURRENT')) {
    problem(`the file ${join(dir, 'CURRENT')} is missing (it names the MANIFEST to read): LevelDB would start an empty database over the old files.`);
  } else {
    const current = readFileSync(join(dir, 'CURRENT'), 'utf8');
    const manifest = /^(MANIFEST-\d+)\n$/.exec(current)?.[1];
    if (!manifest) problem(`the file ${join(dir, 'CURRENT')} is damaged: it should name a MANIFEST file, and it reads ${JSON.stringify(current.slice(0, 40))}.`);
    else if (!files.includes(manifest)) problem(`the file ${join(dir, manifest)} is missing (${join(dir, 'CURRENT')} names it): it lists the table files.`);
  }
  // LevelDB's log and MANIFEST hold records with a CRC32C each: a bad record with good ones after it is damage. A bad
  // record at the end is the write a kill tore; it was never acknowledged (every write is synced before its answer).
  for (const name of files.filter((f) => f.endsWith('.log') || f.startsWith('MANIFEST-'))) {
    const bytes = readFileSync(join(dir, name));
    const bad = bytes.length === 0 && name.startsWith('MANIFEST-') ? 'it is empty (it lists the table files)' : damagedRecord(bytes);
    if (bad !== null) problem(`the file ${join(dir, name)} is damaged: ${bad}.`);
  }
  if (account.length > 0) return repairTables(dir, sealPath, sealed, account);

  // LevelDB's open rewrites its files (the log becomes a table file, a new MANIFEST); on a refusal they are put back
  // as they were found, from hard links taken first, so that a restore or a repair starts from the damaged folder.
  const before = `${dir}.before-check`;
  keep(dir, before);
  let held: { written: number; items: number };
  try {
    held = await readTables(dir);
  } catch (error) {
    putBack(dir, before);
    if (error instanceof DataDamaged) {
      problem(error.message);
      return repairTables(dir, sealPath, sealed, account);
    }
    const text = (error as Error & { cause?: Error }).cause?.message ?? (error as Error).message;
    const named = /(\/\S+\.(?:ldb|sst|log)|MANIFEST-\d+)/.exec(text)?.[1];
    problem(`the tables in ${dir} cannot be read: LevelDB says "${text}"${named ? ` (the file ${named.startsWith('/') ? named : join(dir, named)})` : ''}.`);
    return repairTables(dir, sealPath, sealed, account);
  }
  if (sealed !== null && held.written < sealed) {
    putBack(dir, before);
    const logs = files.filter((f) => f.endsWith('.log')).map((f) => join(dir, f));
    problem(`the tables in ${dir} hold ${held.written} of the ${sealed} writes that were acknowledged (${basename(sealPath)} says so): `
      + `the newest ${sealed - held.written} are missing, so ${logs.length === 0 ? 'its write-ahead log was deleted (no .log file is left)' : `its write-ahead log${logs.length === 1 ? '' : 's'} (${logs.join(', ')})`} or its MANIFEST was cut short, emptied or deleted, and starting would roll the state back.`);
    return repairTables(dir, sealPath, sealed, account);
  }
  if (sealed === null && held.written > 0) {
    putBack(dir, before);
    problem(`the tables' seal ${sealPath} is missing, but ${dir} was written with one: it records how many acknowledged writes the tables hold, so they cannot be checked.`);
    return repairTables(dir, sealPath, sealed, account);
  }
  rmSync(before, { recursive: true, force: true });
  // A kill between a write and its seal leaves the seal a write behind: it catches up here.
  return finish(dir, sealPath, held.written, account, held.written !== sealed);
}

const REMEDY = 'Restore the data folder from a backup, start with --repair to let LevelDB recover what the files still hold (what is lost is printed), or start with --fresh to start empty.';

/** LevelDB's repair over the folder as found, then a read of what it kept; the account says what is lost. */
async function repairTables(dir: string, sealPath: string, sealed: number | null, account: string[]): Promise<TablesChecked> {
  mkdirSync(dir, { recursive: true });
  await ClassicLevel.repair(dir);
  const log = readIfPresent(join(dir, 'LOG')) ?? '';
  const notes = log.split('\n').filter((line) => /Corruption|ignoring|Archiving|missing|lost|error/i.test(line)).map((line) => line.replace(/^\S+ \S+ \S+ /, '').trim());
  const held = await readTables(dir);
  account.push(`LevelDB's repair of ${dir} kept ${held.items} items${notes.length > 0 ? `; it reported: ${notes.slice(0, 10).join('; ')}` : ''}.`);
  if (sealed !== null && held.written < sealed) account.push(`lost: the newest ${sealed - held.written} of ${sealed} acknowledged writes to the tables (writes ${held.written + 1} to ${sealed}).`);
  else account.push('no acknowledged write is missing from the end of the tables; items in a damaged table file that no later write replaced are lost (LevelDB moved such files to tables/lost/).');
  // Sealed at what the tables now hold: the writes after it are numbered from there.
  return finish(dir, sealPath, held.written, account, true);
}

function finish(dir: string, sealPath: string, written: number, account: string[], reseal: boolean | undefined): TablesChecked {
  rmSync(`${dir}.before-check`, { recursive: true, force: true });
  if (reseal || readIfPresent(sealPath) === null) writeSnapshot(sealPath, sealLine(written));
  return { written, account };
}

/** Opens the tables, reads every item (every table file's blocks), and finds the last write's number. */
async function readTables(dir: string): Promise<{ written: number; items: number }> {
  const db = new ClassicLevel<string, string>(dir, { keyEncoding: 'utf8', valueEncoding: 'utf8', createIfMissing: false });
  await db.open();
  try {
    // Each block of a live table file ends with its type and CRC32C (LevelDB checks them only when asked; here every
    // one is). Only the files the MANIFEST lists: one a kill cut while a compaction wrote it is not live, and the open
    // deleted it. A file a compaction deletes while this runs had its items copied to a new one first.
    for (const [, number, size] of db.getProperty('leveldb.sstables').matchAll(/^\s*(\d+):(\d+)\[/gm)) {
      const path = [`${number.padStart(6, '0')}.ldb`, `${number.padStart(6, '0')}.sst`].map((name) => join(dir, name)).find((p) => existsSync(p));
      if (!path) continue;
      let bytes: Buffer;
      try {
        bytes = readFileSync(path);
      } catch {
        continue;
      }
      const bad = bytes.length !== Number(size)
        ? `it is ${bytes.length} bytes long, and the MANIFEST says ${size} (cut short, emptied or overwritten)`
        : damagedTableFile(bytes);
      if (bad !== null) throw new DataDamaged(`the table file ${path} is damaged: ${bad}.`);
    }
    let written = 0;
    let items = 0;
    for await (const [key, value] of db.iterator({ fillCache: false })) {
      if (key.startsWith(WRITTEN_KEY_PREFIX)) written = Math.max(written, Number(value));
      else items += 1;
    }
    return { written, items };
  } finally {
    await db.close();
  }
}

function keep(dir: string, before: string): void {
  if (existsSync(before)) putBack(dir, before); // a check killed half-way: its hard links are the folder as it was
  mkdirSync(before, { recursive: true });
  for (const name of readdirSync(dir)) {
    if (statSync(join(dir, name)).isFile()) linkSync(join(dir, name), join(before, name));
  }
}

/** The folder as it was before the open: LevelDB's new files removed, its deleted ones linked back. */
function putBack(dir: string, before: string): void {
  const kept = new Set(readdirSync(before));
  for (const name of readdirSync(dir)) if (!kept.has(name)) rmSync(join(dir, name), { recursive: true, force: true });
  for (const name of kept) {
    rmSync(join(dir, name), { force: true });
    renameSync(join(before, name), join(dir, name));
  }
  rmSync(before, { recursive: true, force: true });
}

/**
 * The first damaged record of a LevelDB log-format file (a write-ahead log or a MANIFEST) that has good records after
 * it, or null. The format: 32 KiB blocks of records, each `masked crc32c (4) | length (2) | type (1) | data`.
 */
export function damagedRecord(file: Buffer): string | null {
  const BLOCK = 32768;
  let bad: number | null = null;
  let offset = 0;
  while (offset + 7 <= file.length) {
    const left = BLOCK - (offset % BLOCK);
    if (left < 7) { offset += left; continue; }
    const length = file.readUInt16LE(offset + 4);
    const type = file[offset + 6];
    if (type === 0 && length === 0) { offset += left; continue; } // zeros: a block's padding
    const end = offset + 7 + length;
    if (end > file.length) break; // the torn end
    const good = type >= 1 && type <= 4 && length <= left - 7 && unmask(file.readUInt32LE(offset)) === crc32c(file, offset + 6, end);
    if (good && bad !== null) return `the record at byte ${bad} fails its checksum, and good records follow it`;
    if (!good) {
      bad ??= offset;
      offset += left; // the rest of the block cannot be trusted
      continue;
    }
    offset = end;
  }
  return null;
}

/**
 * Why a LevelDB table file is damaged, or null. Its footer (the last 48 bytes) ends with a magic number and holds the
 * index block's place; before that, data and meta blocks follow one another, each `contents | type (1) | masked
 * crc32c of contents and type (4)`. The blocks are found by their checksums, so no block need be decompressed.
 */
export function damagedTableFile(file: Buffer): string | null {
  if (file.length < 48 || file.readUInt32LE(file.length - 8) !== 0x8b80fb57 || file.readUInt32LE(file.length - 4) !== 0xdb477524) {
    return `it is ${file.length} bytes long and does not end with a table file's footer (cut short, emptied or overwritten)`;
  }
  let at = file.length - 48;
  const varint = (): number => {
    let value = 0;
    for (let shift = 0; shift < 63; shift += 7) {
      const byte = file[at++];
      value += (byte & 0x7f) * 2 ** shift;
      if (byte < 0x80) return value;
    }
    return -1;
  };
  varint(); varint(); // the metaindex block's place; it lies between the data blocks and the index block
  const indexOffset = varint();
  const indexSize = varint();
  if (indexOffset < 0 || indexOffset + indexSize + 5 > file.length - 48) return 'its footer points outside the file';
  const end = indexOffset + indexSize + 5;
  let start = 0;
  while (start < end) {
    let crc = 0xffffffff;
    let found = -1;
    for (let i = start; i + 4 < end; i++) {
      crc = CRC32C_TABLE[(crc ^ file[i]) & 0xff] ^ (crc >>> 8);
      if (file[i] <= 1 && unmask(file.readUInt32LE(i + 1)) === ((crc ^ 0xffffffff) >>> 0)) { found = i; break; }
    }
    if (found < 0) return `the block at byte ${start} fails its checksum`;
    start = found + 5;
  }
  return null;
}

function unmask(masked: number): number {
  const rot = (masked - 0xa282ead8) >>> 0;
  return ((rot >>> 17) | (rot << 15)) >>> 0;
}

const CRC32C_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0x82f63b78 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

function crc32c(buffer: Buffer, start: number, end: number): number {
  let crc = 0xffffffff;
  for (let i = start; i < end; i++) crc = CRC32C_TABLE[(crc ^ buffer[i]) & 0xff] ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}
