/** The shared clock of the embedded default: Holdback, the local edge and the gateway sandbox all read it. */
import { DateTime } from 'luxon';

export interface TimerHandle {
  cancel(): void;
}

interface Timer {
  at: number;
  seq: number;
  fire: () => Promise<void> | void;
  cancelled: boolean;
}

/**
 * A clock that runs forward in real time from a chosen instant (or stands still when frozen) and fires timers in
 * time order. `advance` jumps forward, firing every due timer at its own due time, one after another.
 */
export class SharedClock {
  private offsetMs = 0;
  private frozenAt: number | null = null;
  private timers: Timer[] = [];
  private target: number | null = null;
  private seq = 0;
  private chain: Promise<void> = Promise.resolve();
  private ticker: NodeJS.Timeout | null = null;
  /** Called after each timer fires, so that work it started (event deliveries) finishes before the next one. */
  settle: () => Promise<void> = async () => {};
  onError: (error: unknown) => void = (error) => console.error('timer failed', error);

  constructor(opts: { start?: Date; frozen?: boolean } = {}) {
    if (opts.start) this.offsetMs = opts.start.getTime() - Date.now();
    if (opts.frozen) this.frozenAt = this.nowMs();
  }

  nowMs(): number {
    return this.frozenAt ?? Date.now() + this.offsetMs;
  }

  now(): DateTime {
    return DateTime.fromMillis(this.nowMs(), { zone: 'utc' });
  }

  nowDate(): Date {
    return new Date(this.nowMs());
  }

  /** While `advance`/`set` jumps forward: the instant it is jumping to (ms); otherwise null. */
  get advancingTo(): number | null {
    return this.target;
  }

  get frozen(): boolean {
    return this.frozenAt !== null;
  }

  private setMs(ms: number): void {
    if (this.frozenAt !== null) this.frozenAt = ms;
    else this.offsetMs = ms - Date.now();
  }

  /** Runs `fire` when the clock reaches `at` (at once, on the next tick, if that has passed). */
  at(at: Date | DateTime | number, fire: () => Promise<void> | void): TimerHandle {
    const ms = typeof at === 'number' ? at : at instanceof Date ? at.getTime() : at.toMillis();
    const timer: Timer = { at: ms, seq: this.seq++, fire, cancelled: false };
    this.timers.push(timer);
    this.timers.sort((a, b) => a.at - b.at || a.seq - b.seq);
    return { cancel: () => { timer.cancelled = true; this.timers = this.timers.filter((t) => t !== timer); } };
  }

  pendingTimers(): number {
    return this.timers.length;
  }

  /** Sets the clock to an instant; timers due by then fire, in order, each at its own time. */
  async set(to: Date): Promise<void> {
    if (to.getTime() <= this.nowMs()) {
      await this.serial(async () => this.setMs(to.getTime()));
      return this.runDue();
    }
    return this.advanceTo(to.getTime());
  }

  /** Moves the clock forward by `ms`, firing every timer due on the way at its own due time. */
  async advance(ms: number): Promise<void> {
    if (ms < 0) throw new RangeError('advance must not be negative');
    return this.advanceTo(this.nowMs() + ms);
  }

  private advanceTo(target: number): Promise<void> {
    return this.serial(async () => {
      this.target = target;
      try {
        for (;;) {
          const next = this.timers[0];
          if (!next || next.at > target) break;
          this.timers.shift();
          if (next.at > this.nowMs()) this.setMs(next.at);
          await this.fire(next);
        }
        if (target > this.nowMs()) this.setMs(target);
      } finally {
        this.target = null;
      }
    });
  }

  /** Fires the timers that are due now (the real-time ticker calls it). */
  runDue(): Promise<void> {
    return this.serial(async () => {
      for (;;) {
        const next = this.timers[0];
        if (!next || next.at > this.nowMs()) break;
        this.timers.shift();
        await this.fire(next);
      }
    });
  }

  private async fire(timer: Timer): Promise<void> {
    if (timer.cancelled) return;
    try {
      await timer.fire();
    } catch (error) {
      this.onError(error);
    }
    // Settle even after a failed timer: work it started before failing must finish before the next timer fires.
    try {
      await this.settle();
    } catch (error) {
      this.onError(error);
    }
  }

  private serial(work: () => Promise<void>): Promise<void> {
    const run = this.chain.then(work);
    this.chain = run.catch(() => undefined);
    return run;
  }

  /** Starts the real-time ticker that fires due timers as the clock runs. */
  start(intervalMs = 200): void {
    if (this.ticker) return;
    this.ticker = setInterval(() => { void this.runDue(); }, intervalMs);
    this.ticker.unref();
  }

  stop(): void {
    if (this.ticker) clearInterval(this.ticker);
    this.ticker = null;
  }
}
