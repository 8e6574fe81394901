/** `npx holdback start` as a child process on ephemeral ports: its addresses, its output, and ways to end it. */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const entry = join(__dirname, '..', '..', 'bin', 'holdback.js');

/** A `holdback start` child process as soon as it is spawned, before it listens. */
export interface LaunchedHoldback {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** Resolves with the exit code (null when a signal ended it) once the process and its output are done. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** SIGKILL to the CLI and everything it started (its process group), as `kill -9` of the whole tree. */
  killHard(): Promise<void>;
}

/** A started `holdback start`, with the addresses it printed. */
export interface HoldbackProcess extends LaunchedHoldback {
  api: string;
  edge: string;
  sandbox: string;
}

/** Spawns `holdback start <args>` (ports the system picks unless `env` names them) without waiting for it to listen. */
export function launchHoldback(args: string[], env: Record<string, string> = {}): LaunchedHoldback {
  const child = spawn(process.execPath, [entry, 'start', ...args], {
    // One Lambda container: these tests run beside the rest of the suite, and one is enough for their few releases.
    env: { ...process.env, HOLDBACK_API_PORT: '0', HOLDBACK_EDGE_PORT: '0', SANDBOX_PORT: '0', HOLDBACK_LOCAL_CONTAINERS: '1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    // Its own process group, so that a hard kill reaches the CLI's child too, as `kill -9` of the tree would.
    detached: true,
  });
  let out = '';
  let err = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => { out += chunk; });
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => { err += chunk; });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once('close', (code, signal) => resolve({ code, signal }));
  });
  return {
    child, exited,
    stdout: () => out,
    stderr: () => err,
    killHard: async () => {
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error; // already gone
      }
      await exited;
    },
  };
}

/** Starts `holdback start <args>` on ports the system picks and resolves once it printed its addresses. */
export function startHoldback(args: string[], env: Record<string, string> = {}): Promise<HoldbackProcess> {
  const launched = launchHoldback(args, env);
  const { child } = launched;
  return new Promise((resolve, reject) => {
    const address = (name: string) => new RegExp(`${name}\\s+(http://127\\.0\\.0\\.1:\\d+)`).exec(launched.stdout())?.[1];
    const check = () => {
      const api = address('Holdback API');
      const edge = address('Local AWS edge');
      const sandbox = address('Gateway sandbox');
      if (!api || !edge || !sandbox || !launched.stdout().includes('stops everything')) return;
      child.stdout!.off('data', check);
      resolve({ ...launched, api, edge, sandbox });
    };
    child.stdout!.on('data', check);
    void launched.exited.then(({ code, signal }) => reject(new Error(`holdback start ended (${code ?? signal}) before it listened:\n${launched.stdout()}\n${launched.stderr()}`)));
  });
}

/** JSON over fetch; throws with the body when the status is not the expected one. */
export async function call<T = Record<string, unknown>>(url: string, init: RequestInit = {}, expected = 200): Promise<T> {
  const response = await fetch(url, { ...init, headers: { 'content-type': 'application/json', ...(init.headers ?? {}) } });
  const text = await response.text();
  if (response.status !== expected) throw new Error(`${init.method ?? 'GET'} ${url}: ${response.status} ${text}`);
  return (text === '' ? {} : JSON.parse(text)) as T;
}

/** Polls (no fixed sleep) until `ready()` holds, or fails after `limitMs` naming what it waited for. */
export async function pollUntil(what: string, ready: () => boolean | Promise<boolean>, limitMs = 30_000, everyMs = 10): Promise<void> {
  const deadline = Date.now() + limitMs;
  while (!(await ready())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${limitMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}

/** Polls (no fixed sleep) until `ready` holds for what `read` answers, or fails after `limitMs` saying what it last saw. */
export async function readUntil<T>(what: string, read: () => Promise<T>, ready: (value: T) => boolean, limitMs = 30_000): Promise<T> {
  const deadline = Date.now() + limitMs;
  for (;;) {
    const value = await read();
    if (ready(value)) return value;
    if (Date.now() > deadline) throw new Error(`${what}: still ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Kills (hard) every process of `running` that is still running, and empties the list: a test's or a file's clean-up. */
export async function killStillRunning(running: LaunchedHoldback[]): Promise<void> {
  for (const holdback of running.splice(0)) if (holdback.child.exitCode === null && holdback.child.signalCode === null) await holdback.killHard();
}

/**
 * Registers the hooks of a test file whose tests start `holdback start --data` on a data folder: a fresh temporary
 * folder before each test (`per: 'test'`) or once for the file, and after it every process `start`ed that still runs is
 * killed hard and the folder removed. `env`: what each start adds to the environment.
 */
export function holdbacksOnDataFolder(prefix: string, per: 'test' | 'file', env: Record<string, string> = {}) {
  let folder = '';
  const running: HoldbackProcess[] = [];
  (per === 'test' ? beforeEach : beforeAll)(() => {
    folder = mkdtempSync(join(tmpdir(), prefix));
  });
  (per === 'test' ? afterEach : afterAll)(async () => {
    await killStillRunning(running);
    rmSync(folder, { recursive: true, force: true });
  });
  return {
    /** The current data folder. */
    folder: () => folder,
    /** Starts `holdback start` with `args` (and `env`), to be killed after the test or the file if still running. */
    async start(args: string[]): Promise<HoldbackProcess> {
      const holdback = await startHoldback(args, env);
      running.push(holdback);
      return holdback;
    },
  };
}
