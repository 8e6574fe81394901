/** The sandbox's state on disk: a whole snapshot after each changing request (before its answer) and every 2 s (app.ts). */
import { join } from 'node:path';
import { readIfPresent, SnapshotFile } from '../kit/durable-file';
import type { SandboxState } from './state';

/** The snapshot inside the folder given to the sandbox (the data folder's `sandbox/`). */
export const SANDBOX_STATE_FILE = 'state.json';

/** Maps and Sets as tagged arrays, so the state's indexes come back as what they were. */
function replacer(_key: string, value: unknown): unknown {
  if (value instanceof Map) return { $map: [...value] };
  if (value instanceof Set) return { $set: [...value] };
  return value;
}

function reviver(_key: string, value: unknown): unknown {
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    const tagged = value as { $map?: Array<[unknown, unknown]>; $set?: unknown[] };
    if (Array.isArray(tagged.$map) && Object.keys(value).length === 1) return new Map(tagged.$map);
    if (Array.isArray(tagged.$set) && Object.keys(value).length === 1) return new Set(tagged.$set);
  }
  return value;
}

export function serializeState(state: SandboxState): string {
  return JSON.stringify(state, replacer);
}

/**
 * Loads a kept snapshot into `state` (in place: route modules hold the state object). Fields the snapshot lacks (a
 * sandbox version that added some) keep their fresh defaults.
 */
export function loadState(state: SandboxState, folder: string): boolean {
  const text = readIfPresent(join(folder, SANDBOX_STATE_FILE));
  if (text === null) return false;
  Object.assign(state, JSON.parse(text, reviver) as Partial<SandboxState>);
  return true;
}

/** Saves whole snapshots of `state`, one after another, each written to a temporary file and renamed over the last. */
export function stateFile(state: SandboxState, folder: string): SnapshotFile {
  return new SnapshotFile(join(folder, SANDBOX_STATE_FILE), () => serializeState(state));
}
