/**
 * The start's check of every file in the data folder, before any part opens one: a damaged file is refused, naming it,
 * what is wrong and what to do; with `repair`, what can be kept is kept and what was lost is listed. The torn end of a
 * journal (the last write, cut by a kill before it was acknowledged) is normal: it is dropped and said so.
 */
import { createPrivateKey } from 'node:crypto';
import { readdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { DataFolder } from './data-folder';
import { DataDamaged, JournalSeal, journalCut, journalDamage, readIfPresent, readJournal, snapshotText, writeSnapshot } from '../kit/durable-file';
import { checkTables } from './tables-check';
import { SANDBOX_STATE_FILE } from '../sandbox/persistence';

export { DataDamaged } from '../kit/durable-file';

/** Checks (and with `repair`, mends) the folder; resolves with the lines to print about what was dropped or lost. */
export async function checkDataFolder(folder: DataFolder, opts: { repair?: boolean } = {}): Promise<string[]> {
  const account: string[] = checkContents(folder, opts);
  const tables = await checkTables(folder.tables, `${folder.tables}.seal`, opts);
  account.push(...tables.account);
  for (const path of journals(folder.root, folder.tables)) account.push(...checkJournal(path, opts));
  account.push(...checkSnapshot(join(folder.sandbox, SANDBOX_STATE_FILE), 'the gateway sandbox\'s state (its merchant settings, orders, vendors, settlements and webhooks)', opts));
  account.push(...checkSnapshot(folder.clock, 'the clock\'s stored instant (it follows real time, or --clock)', opts));
  account.push(...checkAuditKey(folder.auditKey, opts));
  return account;
}

/** Every journal in the folder (`*.jsonl`, or a seal's, in any subfolder but the tables'). */
function journals(root: string, tables: string): string[] {
  const found: string[] = [];
  for (const name of readdirSync(root)) {
    const path = join(root, name);
    if (path === tables) continue;
    if (statSync(path).isDirectory()) found.push(...journals(path, tables));
    else if (name.endsWith('.jsonl')) found.push(path);
    else if (name.endsWith('.jsonl.seal')) found.push(path.slice(0, -'.seal'.length)); // its journal, even if deleted
  }
  return [...new Set(found)];
}

/** A journal: damaged lines, a cut (fewer lines than its seal), a damaged or missing seal; its torn end is only reported. */
export function checkJournal(path: string, opts: { repair?: boolean }): string[] {
  const read = readJournal(path);
  const seal = new JournalSeal(path);
  let sealed: number | null;
  try {
    sealed = seal.read();
  } catch (error) {
    if (!opts.repair || !(error instanceof DataDamaged)) throw error;
    sealed = null;
  }
  const lines: string[] = [];
  if (read.torn > 0) lines.push(`${path}: the last write (${read.torn} line${read.torn === 1 ? '' : 's'}) was torn by a stop before it reached the disk whole; it was never acknowledged, and is dropped.`);
  const damaged = read.damaged.length > 0;
  const cut = sealed !== null && sealed > read.lastSeq;
  const unsealed = sealed === null && read.lastSeq > 0;
  if (!damaged && !cut && !unsealed) return lines;
  if (!opts.repair) {
    if (damaged) throw new DataDamaged(journalDamage(path, read));
    if (cut) throw new DataDamaged(journalCut(path, read.lastSeq, sealed ?? 0));
    throw new DataDamaged(`the seal ${seal.path} is missing, but ${path} was written with one: it records how much of the journal was on disk, so the journal cannot be checked. Restore the data folder from a backup, start with --repair to take the journal as it stands, or start with --fresh to start empty.`);
  }
  // The repair keeps the good lines, and seals the last number kept.
  if (damaged) lines.push(`${path}: ${read.damaged.length} damaged line${read.damaged.length === 1 ? '' : 's'} (line ${read.damaged.map((d) => d.line).join(', ')}) dropped: each was a change that had been acknowledged, now lost.`);
  if (cut) lines.push(`${path}: lost the last ${(sealed ?? 0) - read.lastSeq} acknowledged change(s) (numbers ${read.lastSeq + 1} to ${sealed}); it carries on with the ${read.records.size} records it still holds.`);
  if (unsealed) lines.push(`${path}: its seal was missing or damaged; the journal is taken as it stands (${read.records.size} records).`);
  const text = snapshotText(read.records, read.lastSeq);
  writeSnapshot(path, text);
  seal.write(read.lastSeq);
  seal.close();
  return lines;
}

/** A whole-file JSON snapshot (written by temp file and rename, so a kill never leaves it half written). */
function checkSnapshot(path: string, what: string, opts: { repair?: boolean }): string[] {
  const text = readIfPresent(path);
  if (text === null) return [];
  let reason: string | null = null;
  try {
    const parsed: unknown = JSON.parse(text);
    if (parsed === null || typeof parsed !== 'object') reason = 'it holds no JSON object';
  } catch (error) {
    reason = text.length === 0 ? 'it is empty' : `it is not whole JSON (${(error as Error).message})`;
  }
  if (reason === null) return [];
  if (!opts.repair) {
    throw new DataDamaged(`the file ${path} is damaged: ${reason}. It holds ${what}. Restore the data folder from a backup, start with --repair to set it aside (as ${path}.damaged) and start without it, or start with --fresh to start empty.`);
  }
  renameSync(path, `${path}.damaged`);
  return [`${path} was damaged (${reason}): set aside as ${path}.damaged; lost: ${what}.`];
}

/** The audit log's signing key: a key that cannot be read is refused (a new one would not verify the old checkpoints). */
function checkAuditKey(path: string, opts: { repair?: boolean }): string[] {
  const text = readIfPresent(path);
  if (text === null) return [];
  try {
    const key = createPrivateKey(text);
    if (key.asymmetricKeyType === 'ed25519') return [];
  } catch {
    // described below
  }
  if (!opts.repair) {
    throw new DataDamaged(`the audit key ${path} is damaged: it is not an Ed25519 private key (PEM). It signs the audit log's checkpoints, and those signed with it verify only with it. Restore it from a backup, start with --repair to set it aside and make a new key (checkpoints signed before then no longer verify with the new public key), or start with --fresh to start empty.`);
  }
  renameSync(path, `${path}.damaged`);
  return [`${path} was damaged: set aside as ${path}.damaged and a new audit key is made; checkpoints signed with the old key no longer verify with the new public key.`];
}

/**
 * The list of the folder's files (`contents.json`), written at the end of each start: a file on it that is gone was
 * deleted (Holdback deletes none; `--fresh` deletes the list too), so a folder that lost a whole file and its seal, or
 * the sandbox's state, is refused too.
 */
const CONTENTS_FILE = 'contents.json';

function listedFiles(folder: DataFolder): string[] {
  return [
    `${folder.tables}.seal`, `${folder.events}.seal`, `${folder.schedules}.seal`, join(folder.queues, 'queues.jsonl.seal'),
    join(folder.sandbox, SANDBOX_STATE_FILE), folder.clock, folder.auditKey,
  ];
}

/** Records which of the folder's files exist now that every part has started (and saved what it keeps). */
export function recordContents(folder: DataFolder): void {
  const files = listedFiles(folder).filter((path) => readIfPresent(path) !== null).map((path) => relative(folder.root, path));
  writeSnapshot(join(folder.root, CONTENTS_FILE), `${JSON.stringify({ files })}\n`);
}

function checkContents(folder: DataFolder, opts: { repair?: boolean }): string[] {
  const path = join(folder.root, CONTENTS_FILE);
  const text = readIfPresent(path);
  if (text === null) return [];
  let files: string[] | null = null;
  try {
    const parsed = JSON.parse(text) as { files?: unknown };
    if (Array.isArray(parsed.files) && parsed.files.every((f) => typeof f === 'string')) files = parsed.files as string[];
  } catch {
    // described below
  }
  const lines: string[] = [];
  if (files === null) {
    if (!opts.repair) throw new DataDamaged(`the file ${path} is damaged: it should list the data folder's files as JSON. It records which files a start left, so that a deleted one is found. Restore the data folder from a backup, start with --repair to write it again, or start with --fresh to start empty.`);
    lines.push(`${path} was damaged: written again at the end of this start.`);
  }
  const missing = (files ?? []).filter((file) => readIfPresent(join(folder.root, file)) === null);
  if (missing.length > 0 && !opts.repair) {
    throw new DataDamaged(`the file ${join(folder.root, missing[0])} is missing${missing.length > 1 ? ` (and ${missing.slice(1).map((f) => join(folder.root, f)).join(', ')})` : ''}: the last start left it (${path} lists it), and Holdback deletes none, so it was deleted. Restore the data folder from a backup, start with --repair to carry on without it (what it held is lost), or start with --fresh to start empty.`);
  }
  for (const file of missing) lines.push(`${join(folder.root, file)} was missing (deleted since the last start): what it held is lost.`);
  // Written again at the end of this start; until then, a kill leaves no list to hold a repaired folder to.
  if (opts.repair) rmSync(path, { force: true });
  return lines;
}
