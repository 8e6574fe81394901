/** Work the local edge has started but not finished (event deliveries, schedule invocations), so callers can wait for quiet. */
import { backoffDelayMs } from '../../kit/backoff';

export class InFlight {
  private readonly running = new Set<Promise<void>>();
  private readonly waiting: Array<() => void> = [];
  private active = 0;

  /** At most `limit` tasks run at once (Lambda's concurrency, scaled down); the rest wait their turn. */
  constructor(private readonly limit = Infinity) {}

  /** Starts `task` now or when a slot frees up; `idle()` waits for it either way. Never rejects. */
  run(task: () => Promise<void>): Promise<void> {
    const done = this.acquire()
      .then(task)
      .catch(() => undefined)
      .finally(() => {
        this.release();
        this.running.delete(done);
      });
    this.running.add(done);
    return done;
  }

  get size(): number {
    return this.running.size;
  }

  /** Resolves once nothing is running, including work started by work that was running. */
  async idle(): Promise<void> {
    while (this.running.size > 0) await Promise.allSettled([...this.running]);
  }

  private acquire(): Promise<void> {
    if (this.active < this.limit) {
      this.active += 1;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.waiting.push(() => { this.active += 1; resolve(); }));
  }

  private release(): void {
    this.active -= 1;
    this.waiting.shift()?.();
  }
}

/** Resolves after `ms` of real time: the pause between retries of a failed invocation. */
export function pause(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * A target that cannot run yet: the runtime is still starting, its containers are starting again, or it is closing.
 * The bus, the scheduler and the queue's event source wait for it (with a bounded backoff) and never count it as a
 * failed attempt: what they acknowledged stays kept until a target has taken it.
 */
export class TargetNotReady extends Error {
  readonly notReady = true;
}

export function isTargetNotReady(error: unknown): boolean {
  return error instanceof TargetNotReady || (error as { notReady?: unknown } | null)?.notReady === true;
}

/** The wait before try `n` (from 1): `firstMs` doubling up to `capMs`, with up to a quarter of jitter (as AWS retries). */
export function backoffMs(n: number, firstMs: number, capMs: number): number {
  return backoffDelayMs(n, { firstMs, capMs, jitter: 0.25 });
}

/**
 * Timers of work waiting for its next try, outside `InFlight` (an event waiting minutes for its next try must not hold
 * `idle()`); `wake` runs the ones waiting for a target to be ready at once, `close` drops every timer.
 */
export class Waiting {
  private readonly timers = new Map<NodeJS.Timeout, { run: () => void; notReady: boolean }>();
  private closed = false;

  get size(): number {
    return this.timers.size;
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /** Runs `run` after `ms` (real time), unless closed first; `notReady` marks a wait that `wake` ends early. */
  after(ms: number, run: () => void, notReady: boolean): void {
    if (this.closed) return;
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      run();
    }, ms);
    timer.unref();
    this.timers.set(timer, { run, notReady });
  }

  /** The targets are ready now: every wait for them ends at once. */
  wake(): void {
    for (const [timer, entry] of [...this.timers]) {
      if (!entry.notReady) continue;
      clearTimeout(timer);
      this.timers.delete(timer);
      entry.run();
    }
  }

  close(): void {
    this.closed = true;
    for (const timer of this.timers.keys()) clearTimeout(timer);
    this.timers.clear();
  }
}
