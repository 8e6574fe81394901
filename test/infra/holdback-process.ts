/** `npx holdback start` as a child process on ephemeral ports: its addresses, its output, and ways to end it. */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';

const entry = join(__dirname, '..', '..', 'bin', 'holdback.js');

export interface HoldbackProcess {
  child: ChildProcess;
  api: string;
  edge: string;
  sandbox: string;
  stdout(): string;
  stderr(): string;
  /** Resolves with the exit code (null when a signal ended it) once the process and its output are done. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** SIGKILL to the CLI and everything it started (its process group), as `kill -9` of the whole tree. */
  killHard(): Promise<void>;
}

/** Starts `holdback start <args>` on ports the system picks and resolves once it printed its addresses. */
export function startHoldback(args: string[], env: Record<string, string> = {}): Promise<HoldbackProcess> {
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
  return new Promise((resolve, reject) => {
    const address = (name: string) => new RegExp(`${name}\\s+(http://127\\.0\\.0\\.1:\\d+)`).exec(out)?.[1];
    const check = () => {
      const api = address('Holdback API');
      const edge = address('Local AWS edge');
      const sandbox = address('Gateway sandbox');
      if (!api || !edge || !sandbox || !out.includes('stops everything')) return;
      child.stdout!.off('data', check);
      resolve({
        child, api, edge, sandbox, exited,
        stdout: () => out,
        stderr: () => err,
        killHard: async () => {
          process.kill(-child.pid!, 'SIGKILL');
          await exited;
        },
      });
    };
    child.stdout!.on('data', check);
    void exited.then(({ code, signal }) => reject(new Error(`holdback start ended (${code ?? signal}) before it listened:\n${out}\n${err}`)));
  });
}

/** JSON over fetch; throws with the body when the status is not the expected one. */
export async function call<T = Record<string, unknown>>(url: string, init: RequestInit = {}, expected = 200): Promise<T> {
  const response = await fetch(url, { ...init, headers: { 'content-type': 'application/json', ...(init.headers ?? {}) } });
  const text = await response.text();
  if (response.status !== expected) throw new Error(`${init.method ?? 'GET'} ${url}: ${response.status} ${text}`);
  return (text === '' ? {} : JSON.parse(text)) as T;
}
