/**
 * `npm start` runs Holdback as npm → sh → tsx → node. A SIGTERM to npm reaches `sh`, which dies without passing it on,
 * and would leave this process running with its ports held (issue 10.8). So the processes that launched it, up to
 * npm, are watched: when one of them is gone, the embedded default stops as it does on SIGTERM.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

/** npm, tsx and the shell between them: the launcher chain is never deeper. */
const MAX_DEPTH = 4;
const WATCH_EVERY_MS = 1_000;

/** A process's parent and command line, from /proc (Linux) or `ps` (macOS and others); null when unknown. */
function processInfo(pid: number): { parent: number; command: string } | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name may hold spaces and parentheses: the fields after the last ")" are fixed.
    const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    const command = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\u0000').join(' ');
    return { parent, command };
  } catch {
    const ps = spawnSync('ps', ['-o', 'ppid=,command=', '-p', String(pid)], { encoding: 'utf8' });
    const match = ps.status === 0 ? /^\s*(\d+)\s+(.*)$/.exec(ps.stdout.trim()) : null;
    return match ? { parent: Number(match[1]), command: match[2] } : null;
  }
}

/** The launchers to watch: this process's ancestors up to npm, when npm started it (npm sets npm_lifecycle_event). */
export function launcherChain(env: NodeJS.ProcessEnv = process.env): number[] {
  if (!env.npm_lifecycle_event) return [];
  const chain: number[] = [];
  let pid = process.ppid;
  for (let depth = 0; depth < MAX_DEPTH && pid > 1; depth += 1) {
    const info = processInfo(pid);
    if (!info) return [];
    chain.push(pid);
    if (/(^|[/\s])npm(-cli\.js)?(\s|$)/.test(info.command)) return chain;
    pid = info.parent;
  }
  return []; // no npm within reach: some other launcher, which passes signals on itself
}

/**
 * Whether the process runs: it answers signal 0 (or exists but is not ours to signal) and is not a zombie. A killed
 * process whose parent died too can linger as a zombie until an init reaps it (some containers' init never does); it
 * answers signals but holds nothing.
 */
export function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  return !isZombie(pid);
}

/** Whether the process has exited and only waits to be reaped (Linux /proc; elsewhere assumed not). */
function isZombie(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
    return state === 'Z' || state === 'X';
  } catch {
    return false;
  }
}

/** Calls `gone` once, when a launcher of this process has exited. */
export function watchLaunchers(gone: (pid: number) => void): void {
  const chain = launcherChain();
  if (chain.length === 0) return;
  const timer = setInterval(() => {
    const dead = chain.find((pid) => !isRunning(pid)) ?? (process.ppid !== chain[0] ? chain[0] : undefined);
    if (dead === undefined) return;
    clearInterval(timer);
    gone(dead);
  }, WATCH_EVERY_MS);
  timer.unref();
}
