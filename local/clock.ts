/** The shared clock of the embedded default: Holdback, the local edge and the gateway sandbox all read it. */
import { DateTime } from 'luxon';
import { readIfPresent, SnapshotFile } from '../kit/durable-file';

export interface TimerHandle {
  cancel(): void;
}

/** A `set` or `advance` under way: where it started and goes (epoch ms), timers fired so far, and those still due by `to`. */
export interface ClockProgress {
  from: number;
  to: number;
  fired: number;
  pending: number;
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
  /** Soonest first; equal times in the order they were set. */
  private timers: Timer[] = [];
  private target: number | null = null;
  /** The `set` or `advance` firing now (the ticker's runs are not reported). */
  private moving: { from: number; to: number; fired: number } | null = null;
  private seq = 0;
  /** set, advance and runDue run one after another, each reading the clock only when its turn comes. */
  private chain: Promise<void> = Promise.resolve();
  /** The ticker's runDue is queued at most once, however long the run before it takes. */
  private tickQueued = false;
  private ticker: NodeJS.Timeout | null = null;
  /** Called after each timer fires, so that work it started (event deliveries) finishes before the next one. */
  settle: () => Promise<void> = async () => {};
  onError: (error: unknown) => void = (error) => console.error('timer failed', error);
  /** Called when `set` or `advance` has moved the clock, before they resolve (the data folder keeps the instant). */
  moved: () => Promise<void> = async () => {};
  /**
   * The clock's state for other threads (handlers on worker threads read it with `sharedClockReader`): slot 0 says
   * frozen (1) or running (0), slot 1 holds the frozen instant or the offset from real time, in microseconds.
   */
  readonly shared = new SharedArrayBuffer(2 * BigInt64Array.BYTES_PER_ELEMENT);

  constructor(opts: { start?: Date; frozen?: boolean } = {}) {
    if (opts.frozen) this.frozenAt = opts.start?.getTime() ?? Date.now();
    else if (opts.start) this.offsetMs = opts.start.getTime() - Date.now();
    this.publish();
  }

  /** Copies the state to `shared`; the frozen flag never changes after construction, so readers never see a mix. */
  private publish(): void {
    const slots = new BigInt64Array(this.shared);
    Atomics.store(slots, 0, this.frozenAt === null ? 0n : 1n);
    Atomics.store(slots, 1, BigInt(Math.round((this.frozenAt ?? this.offsetMs) * 1000)));
  }

  get frozen(): boolean {
    return this.frozenAt !== null;
  }

  /** Running at real time, never set or moved: after a restart it should follow real time again, not a stored instant. */
  get followsRealTime(): boolean {
    return this.frozenAt === null && this.offsetMs === 0;
  }

  nowMs(): number {
    return this.frozenAt ?? Date.now() + this.offsetMs;
  }

  now(): DateTime {
    return DateTime.fromMillis(this.nowMs(), { zone: 'utc' });
  }

  /** While `set`, `advance` or `runDue` fires timers: the instant it fires them up to (ms); otherwise null. */
  get advancingTo(): number | null {
    return this.target;
  }

  /** The `set` or `advance` under way, with the timers it fired and those still due by its target; null when none is. */
  get progress(): ClockProgress | null {
    const moving = this.moving;
    if (!moving) return null;
    return { ...moving, pending: this.indexAfter(moving.to, Number.MAX_SAFE_INTEGER) };
  }

  private setMs(ms: number): void {
    if (this.frozenAt !== null) this.frozenAt = ms;
    else this.offsetMs = ms - Date.now();
    this.publish();
  }

  /** Runs `fire` when the clock reaches `at` (at once, on the next tick, if that has passed). */
  at(at: Date | DateTime | number, fire: () => Promise<void> | void): TimerHandle {
    const ms = typeof at === 'number' ? at : at instanceof Date ? at.getTime() : at.toMillis();
    const timer: Timer = { at: ms, seq: this.seq++, fire, cancelled: false };
    // Sorted by (at, seq), and a new timer has the highest seq: it goes after every timer due at or before `ms`.
    this.timers.splice(this.indexAfter(ms, timer.seq), 0, timer);
    return {
      cancel: () => {
        if (timer.cancelled) return;
        timer.cancelled = true;
        // The same binary search finds it: the sandbox re-arms a settlement timer on every eligibility update.
        const index = this.indexAfter(timer.at, timer.seq - 1);
        if (this.timers[index] === timer) this.timers.splice(index, 1);
      },
    };
  }

  /** The first index whose timer comes after (at, seq) in firing order. */
  private indexAfter(at: number, seq: number): number {
    let low = 0;
    let high = this.timers.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      const t = this.timers[mid];
      if (t.at < at || (t.at === at && t.seq <= seq)) low = mid + 1;
      else high = mid;
    }
    return low;
  }

  /** Sets the clock to an instant, backwards too; timers due by then fire, in order, each at its own time. */
  set(to: Date): Promise<void> {
    return this.serial(async () => {
      if (to.getTime() < this.nowMs()) this.setMs(to.getTime());
      await this.fireUntil(to.getTime(), true);
      await this.moved();
    });
  }

  /** Moves the clock forward by `ms` from where it stands when its turn comes, firing every timer due on the way. */
  advance(ms: number): Promise<void> {
    if (ms < 0) return Promise.reject(new RangeError('advance must not be negative'));
    return this.serial(async () => {
      await this.fireUntil(this.nowMs() + ms, true);
      await this.moved();
    });
  }

  /** Fires the timers that are due now (the real-time ticker calls it). */
  runDue(): Promise<void> {
    return this.serial(() => this.fireUntil(this.nowMs()));
  }

  /** Fires every timer due by `target`, the clock standing at each one's time, then leaves it at `target` or later. */
  private async fireUntil(target: number, reported = false): Promise<void> {
    this.target = target;
    const moving = reported ? { from: this.nowMs(), to: target, fired: 0 } : null;
    if (moving) this.moving = moving;
    try {
      for (let next = this.timers[0]; next && next.at <= target; next = this.timers[0]) {
        this.timers.shift();
        if (next.at > this.nowMs()) this.setMs(next.at);
        if ((await this.fire(next)) && moving) moving.fired += 1;
      }
      if (target > this.nowMs()) this.setMs(target);
    } finally {
      this.target = null;
      if (moving) this.moving = null;
    }
  }

  /** Fires a timer unless it was cancelled; whether it fired. */
  private async fire(timer: Timer): Promise<boolean> {
    if (timer.cancelled) return false;
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
    return true;
  }

  private serial(work: () => Promise<void>): Promise<void> {
    const run = this.chain.then(work);
    this.chain = run.catch(() => undefined);
    return run;
  }

  /** Starts the real-time ticker that fires due timers as the clock runs. */
  start(intervalMs = 200): void {
    if (this.ticker) return;
    this.ticker = setInterval(() => {
      if (this.tickQueued) return;
      this.tickQueued = true;
      void this.runDue().finally(() => { this.tickQueued = false; });
    }, intervalMs);
    this.ticker.unref();
  }

  stop(): void {
    if (this.ticker) clearInterval(this.ticker);
    this.ticker = null;
  }
}

/** The `nowMs` of a SharedClock on another thread, from its `shared` buffer: timers stay with the clock's own thread. */
export function sharedClockReader(shared: SharedArrayBuffer): () => number {
  const slots = new BigInt64Array(shared);
  return () => {
    const value = Number(Atomics.load(slots, 1)) / 1000;
    return Atomics.load(slots, 0) === 1n ? value : Date.now() + value;
  };
}

/** The clock as the data folder keeps it. */
export interface StoredClock {
  now: string;
  frozen: boolean;
  followsRealTime: boolean;
}

/** Where a restarted clock starts: `--clock` wins; else the stored instant (frozen if it was); else real time. */
export function resumedClock(path: string, given: { start?: Date; frozen?: boolean }): { start?: Date; frozen: boolean } {
  if (given.start) return { start: given.start, frozen: given.frozen ?? false };
  const text = readIfPresent(path);
  if (text === null) return { frozen: given.frozen ?? false };
  const stored = JSON.parse(text) as StoredClock;
  const frozen = stored.frozen || (given.frozen ?? false);
  if (stored.followsRealTime && !frozen) return { frozen: false };
  return { start: new Date(stored.now), frozen };
}

/** The clock's file: its instant and mode, each save whole (temp file and rename), saves one after another. */
export function clockFile(path: string, clock: SharedClock): SnapshotFile {
  return new SnapshotFile(path, () => {
    const stored: StoredClock = { now: new Date(clock.nowMs()).toISOString(), frozen: clock.frozen, followsRealTime: clock.followsRealTime };
    return JSON.stringify(stored);
  });
}
