/** The sandbox's view of time: an injected clock (the lead's SharedClock fits) or a real-time one of its own. */

export interface SandboxTimer {
  cancel(): void;
}

export interface SandboxClock {
  nowMs(): number;
  at(ms: number, fire: () => void | Promise<void>): SandboxTimer;
}

/** setTimeout caps delays at 2^31-1 ms (about 24.8 days); longer waits are taken in hops. */
const MAX_TIMEOUT_MS = 2_147_483_647;

/** Wall-clock time; timers are unref'd so that a forgotten timer never keeps a process alive. */
export function realTimeClock(): SandboxClock {
  return {
    nowMs: () => Date.now(),
    at(ms, fire) {
      let handle: NodeJS.Timeout | null = null;
      let cancelled = false;
      const wait = (): void => {
        const delay = ms - Date.now();
        if (delay <= 0) {
          handle = setTimeout(() => { if (!cancelled) void Promise.resolve().then(fire).catch(() => undefined); }, 0);
        } else {
          handle = setTimeout(wait, Math.min(delay, MAX_TIMEOUT_MS));
        }
        handle.unref();
      };
      wait();
      return { cancel: () => { cancelled = true; if (handle) clearTimeout(handle); } };
    },
  };
}
