/** A clock the test moves by hand. */
import { DateTime, Duration } from 'luxon';
import type { Clock } from '../../functions/application/ports';
import { Instant } from '../../functions/domain/instant';

export class FakeClock implements Clock {
  private current: DateTime;

  constructor(start: string) {
    this.current = FakeClock.parse(start);
  }

  now(): Instant {
    return Instant.fromDateTime(this.current);
  }

  /** To a time as text, or a record's Instant. */
  set(to: string | Instant): void {
    this.current = typeof to === 'string' ? FakeClock.parse(to) : to.toDateTime().toUTC();
  }

  advance(by: string | { minutes?: number; hours?: number; days?: number; seconds?: number }): void {
    this.current = this.current.plus(typeof by === 'string' ? Duration.fromISO(by) : by);
  }

  private static parse(text: string): DateTime {
    const dt = DateTime.fromISO(text, { setZone: true });
    if (!dt.isValid) throw new RangeError(`FakeClock: ${text} is not an ISO time`);
    return dt.toUTC();
  }
}
