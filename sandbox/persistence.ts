/** The sandbox's state on disk: a whole snapshot after each changing request (before its answer) and every 2 s (app.ts). */
import { join } from 'node:path';
import { readIfPresent, SnapshotFile } from '../kit/durable-file';
import type { EligibilityUpdateLogEntry, SandboxState } from './state';
import { TrackedMap } from './tracked-map';

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
    if (Array.isArray(tagged.$map) && Object.keys(value).length === 1) return new TrackedMap(tagged.$map);
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

/**
 * serializeState's text, made again only where the state may have changed since the last call: each map entry's text
 * is kept and made again only if its key was reached since (TrackedMap), and the eligibility log's (append-only) text of
 * the entries it already had is kept. The rest (settings, counters, webhooks) is small and made every time. With
 * `all`, everything is made again (the saves on a timer and at the stop: settlements and webhooks change records that
 * timers hold, not reached through their maps).
 */
export class StateText {
  private readonly maps = new WeakMap<Map<unknown, unknown>, { texts: Map<unknown, string>; whole: string }>();
  private log: { entries: EligibilityUpdateLogEntry[]; kept: EligibilityUpdateLogEntry[]; texts: string[] } | null = null;

  of(state: SandboxState, all: boolean): string {
    const parts: string[] = [];
    for (const key of Object.keys(state)) {
      const value = (state as unknown as Record<string, unknown>)[key];
      const text = key === 'eligibilityLog' ? this.logText(value as EligibilityUpdateLogEntry[], all) : this.valueText(value, all);
      if (text !== undefined) parts.push(`${JSON.stringify(key)}:${text}`);
    }
    return `{${parts.join(',')}}`;
  }

  private valueText(value: unknown, all: boolean): string | undefined {
    if (value instanceof Map) return this.mapText(value, all);
    if (value !== null && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype
      && Object.values(value).some((inner) => inner instanceof Map)) {
      const parts: string[] = [];
      for (const [key, inner] of Object.entries(value)) {
        const text = this.valueText(inner, all);
        if (text !== undefined) parts.push(`${JSON.stringify(key)}:${text}`);
      }
      return `{${parts.join(',')}}`;
    }
    return JSON.stringify(value, replacer) as string | undefined;
  }

  private mapText(map: Map<unknown, unknown>, all: boolean): string {
    const tracked = map instanceof TrackedMap;
    const reached = tracked ? map.takeReached() : null;
    let kept = all || reached === null ? undefined : this.maps.get(map);
    if (kept && reached!.size === 0) return kept.whole;
    if (kept) for (const key of reached!) kept.texts.delete(key);
    else kept = { texts: new Map(), whole: '' };
    const parts: string[] = [];
    for (const [key, value] of tracked ? map.unreachedEntries() : map.entries()) {
      let text = kept.texts.get(key);
      if (text === undefined) {
        text = JSON.stringify([key, value], replacer);
        kept.texts.set(key, text);
      }
      parts.push(text);
    }
    kept.whole = `{"$map":[${parts.join(',')}]}`;
    if (tracked) this.maps.set(map, kept);
    return kept.whole;
  }

  /** The log only grows: the entries it had keep their text while each is still the same object at the same place. */
  private logText(entries: EligibilityUpdateLogEntry[], all: boolean): string | undefined {
    if (!Array.isArray(entries)) return this.valueText(entries, all);
    const log = this.log;
    let from = 0;
    if (!all && log && log.entries === entries && log.kept.length <= entries.length && log.kept.every((entry, i) => entries[i] === entry)) from = log.kept.length;
    const texts = from > 0 ? log!.texts : [];
    texts.length = from;
    for (let i = from; i < entries.length; i += 1) texts.push(JSON.stringify(entries[i] ?? null, replacer));
    this.log = { entries, kept: entries.slice(), texts };
    return `[${texts.join(',')}]`;
  }
}

/**
 * Saves whole snapshots of `state`, one after another, each written to a temporary file and renamed over the last.
 * `save()` makes the text again only where requests reached the state since the last save (StateText); `saveAll()`
 * makes all of it again.
 */
export function stateFile(state: SandboxState, folder: string): { save(): Promise<void>; saveAll(): Promise<void> } {
  const text = new StateText();
  let all = true;
  const file = new SnapshotFile(join(folder, SANDBOX_STATE_FILE), () => {
    const whole = all;
    all = false;
    return text.of(state, whole);
  });
  return {
    save: () => file.save(),
    saveAll: () => {
      all = true;
      return file.save();
    },
  };
}
