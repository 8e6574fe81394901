/** Client-side throttle of gateway sends: at most N per sliding 60-second window, shared by every call of a client. */

export type Sleep = (ms: number) => Promise<void>;
export const realSleep: Sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

const WINDOW_MS = 60_000;

export class SendRateLimiter {
  /** Times (ms) of the sends inside the current window, oldest first. */
  private sent: number[] = [];

  constructor(
    readonly ratePerMinute: number,
    private readonly sleep: Sleep = realSleep,
    private readonly nowMs: () => number = Date.now,
  ) {
    if (!Number.isInteger(ratePerMinute) || ratePerMinute < 1) {
      throw new Error(`ratePerMinute: ${ratePerMinute} is not a positive integer; send e.g. 600`);
    }
  }

  /**
   * Takes a slot for one send, waiting for room until `deadlineMs` (epoch ms). Answers `{ok: true}` once a slot is
   * taken, or how long the caller would still have had to wait.
   */
  async acquire(deadlineMs: number): Promise<{ ok: true } | { ok: false; waitMs: number }> {
    for (;;) {
      const now = this.nowMs();
      while (this.sent.length > 0 && this.sent[0] <= now - WINDOW_MS) this.sent.shift();
      if (this.sent.length < this.ratePerMinute) {
        // Taken synchronously after the check, so concurrent calls cannot both take the last slot.
        this.sent.push(now);
        return { ok: true };
      }
      const waitMs = this.sent[0] + WINDOW_MS - now;
      if (now + waitMs > deadlineMs) return { ok: false, waitMs };
      await this.sleep(waitMs);
    }
  }
}
