/** Work the local edge has started but not finished (event deliveries, schedule invocations), so callers can wait for quiet. */

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
