/**
 * Client-side throttle of gateway sends: at most N per sliding 60-second window, shared by every call of a client. A
 * send counts from the moment it is taken until 60 s after its answer came back: the gateway stamps a request at some
 * instant between the two, so a send that waited for the answer's 60 s never lands inside the gateway's window of an
 * earlier one, however long the earlier one took to arrive.
 */

export type Sleep = (ms: number) => Promise<void>;
export const realSleep: Sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

const WINDOW_MS = 60_000;
/** How often a caller re-checks while every slot waits for its answer (none has a known end yet). */
const PENDING_POLL_MS = 100;

export class SendRateLimiter {
  /** Times (ms) the answers of the sends inside the current window came back, oldest first. */
  private answered: number[] = [];
  /** Sends taken and not yet answered: they count against the window too. */
  private pending = 0;

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
   * Takes a slot for one send, waiting for room until `deadlineMs` (epoch ms). Answers `{ok: true, answered}` once a
   * slot is taken (call `answered()` when the send's answer, timeout or error came back), or how long the caller would
   * still have had to wait.
   */
  async acquire(deadlineMs: number): Promise<{ ok: true; answered: () => void } | { ok: false; waitMs: number }> {
    for (;;) {
      const now = this.nowMs();
      while (this.answered.length > 0 && this.answered[0] <= now - WINDOW_MS) this.answered.shift();
      if (this.answered.length + this.pending < this.ratePerMinute) {
        // Taken synchronously after the check, so concurrent calls cannot both take the last slot.
        this.pending += 1;
        let done = false;
        return {
          ok: true,
          answered: () => {
            if (done) return;
            done = true;
            this.pending -= 1;
            this.answered.push(Math.max(this.nowMs(), this.answered.at(-1) ?? 0));
          },
        };
      }
      // Every slot pending: the earliest it can free is a window after the first answer still to come.
      const waitMs = this.answered.length > 0 ? this.answered[0] + WINDOW_MS - now : WINDOW_MS;
      if (now + waitMs > deadlineMs) return { ok: false, waitMs };
      await this.sleep(this.answered.length > 0 ? waitMs : PENDING_POLL_MS);
    }
  }
}
