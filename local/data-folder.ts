/** The embedded default's data folder (`.holdback/` by default): where each part keeps its state, and the lock on it. */
import { closeSync, mkdirSync, openSync, readFileSync, rmSync, unlinkSync, writeSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { isRunning } from './launcher';

/** The folder `npm start` keeps its state in, under the folder it is started from (`--data DIR` chooses another). */
export const DATA_FOLDER_NAME = '.holdback';

/**
 * The audit log's local signing key (PEM), inside the data folder: the audit log's writer creates it on first use and
 * reads it after every restart, so checkpoints signed before a restart still verify after it.
 */
export const AUDIT_KEY_FILE = 'audit-key.pem';

/** Where each part of the embedded default keeps its state, inside one data folder. */
export interface DataFolder {
  root: string;
  /** dynalite's LevelDB folder: Holdback's tables (orders, releases, settings, policies, rejected events, ...). */
  tables: string;
  /** The local Scheduler's schedules (journal). */
  schedules: string;
  /** Events the local bus accepted and has not finished delivering (journal). */
  events: string;
  /** The local SQS queues' messages (journal per queue, in this folder). */
  queues: string;
  /** The gateway sandbox's state (snapshot). */
  sandbox: string;
  /** The shared clock: its instant and whether it is frozen. */
  clock: string;
  /** The audit log's local signing key (`AUDIT_KEY_FILE`). */
  auditKey: string;
  /** Other audit log files, for its writer to use as it sees fit. */
  audit: string;
}

export function dataFolderPaths(dir: string): DataFolder {
  const root = resolve(dir);
  return {
    root,
    tables: join(root, 'tables'),
    schedules: join(root, 'schedules.jsonl'),
    events: join(root, 'events.jsonl'),
    queues: join(root, 'queues'),
    sandbox: join(root, 'sandbox'),
    clock: join(root, 'clock.json'),
    auditKey: join(root, AUDIT_KEY_FILE),
    audit: join(root, 'audit'),
  };
}

/** The default data folder: `.holdback/` under the folder the process was started from. */
export function defaultDataDir(cwd = process.cwd()): string {
  return join(cwd, DATA_FOLDER_NAME);
}

export class DataFolderInUse extends Error {}

/**
 * Creates the folder (emptied first when `fresh`) and takes its lock: two processes on one folder would each think the
 * other's schedules and messages were theirs. A lock left by a killed process is taken over.
 */
export function openDataFolder(dir: string, opts: { fresh?: boolean } = {}): { folder: DataFolder; release: () => void } {
  const folder = dataFolderPaths(dir);
  const lock = join(folder.root, 'lock');
  mkdirSync(folder.root, { recursive: true });
  const holder = lockHolder(lock);
  if (holder !== null && holder !== process.pid) {
    throw new DataFolderInUse(
      `the data folder ${folder.root} is in use by process ${holder}: stop it first, or start with --data <another folder>`,
    );
  }
  if (opts.fresh) {
    rmSync(folder.root, { recursive: true, force: true });
    mkdirSync(folder.root, { recursive: true });
  }
  for (const sub of [folder.queues, folder.sandbox, folder.audit]) mkdirSync(sub, { recursive: true });
  const fd = openSync(lock, 'w');
  writeSync(fd, String(process.pid));
  closeSync(fd);
  return {
    folder,
    release: () => {
      if (lockHolder(lock) === process.pid) unlinkSync(lock);
    },
  };
}

/** The live process holding the lock, or null (no lock, or its process is gone). */
function lockHolder(lock: string): number | null {
  let pid: number;
  try {
    pid = Number(readFileSync(lock, 'utf8').trim());
  } catch {
    return null;
  }
  if (!Number.isInteger(pid) || pid <= 0) return null;
  return isRunning(pid) ? pid : null;
}
