/** The eligibility window [transaction time, transaction time + Defer by Days] and the gateway's "not in the past". */
import { DateTime, type Zone } from 'luxon';
import type { Clamp } from './types';
import { INDIA_TIME, formatEpochMs, formatInstant } from './dates';
import { fixedZone, type Instant } from './instant';

const MINUTE_MS = 60_000;

/** Transaction time plus Defer by Days, counted in India days (the gateway's clock). */
export function maxEligibility(transactionTime: DateTime, deferByDays: number): DateTime {
  return transactionTime.setZone(INDIA_TIME).plus({ days: deferByDays });
}

/**
 * How far ahead of now an eligibility sent "at the next minute" must lie: the gateway refuses a time in the past, and
 * a minute that is due a second after it was chosen has often passed by the time the PUT is processed (the client
 * may wait for its rate limit and retry). Sent at 10:00:50, "the next minute" is therefore 10:02, not 10:01.
 */
export const SEND_MARGIN_MS = 30_000;

/** The earliest time the gateway will still accept when the PUT arrives: the first whole minute after now + the margin. */
export function nextGatewayMinute(now: DateTime): DateTime {
  return DateTime.fromMillis(nextGatewayMinuteMs(now.toMillis()), { zone: INDIA_TIME });
}

/** nextGatewayMinute in epoch milliseconds: India's offset is whole minutes, so its minutes start where UTC's do. */
export function nextGatewayMinuteMs(nowMs: number): number {
  return Math.floor((nowMs + SEND_MARGIN_MS) / MINUTE_MS) * MINUTE_MS + MINUTE_MS;
}

export interface EligibilityWindow {
  transactionTime: DateTime;
  maxEligibility: DateTime;
}

/** The window as Instants, for decisions computed in epoch milliseconds. */
export interface InstantWindow {
  transactionTime: Instant;
  maxEligibility: Instant;
}

export type ClampResult =
  | { eligibility: DateTime; clamp: Clamp | null }
  | { eligibility: null; reason: 'window_closed' };

/** How the window reads an instant of either form: its epoch milliseconds, and the zone its clamp texts are written in. */
interface InstantForm<T> {
  ms(instant: T): number;
  zone(instant: T): string | Zone;
}

const DATE_TIME: InstantForm<DateTime> = { ms: (dt) => dt.toMillis(), zone: (dt) => dt.zoneName ?? INDIA_TIME };
const INSTANT: InstantForm<Instant> = { ms: (i) => i.ms, zone: (i) => fixedZone(i.offset) };

function intoWindow<T>(form: InstantForm<T>, target: T, window: { transactionTime: T; maxEligibility: T }): { eligibility: T; clamp: Clamp | null } {
  const at = form.ms(target);
  if (at < form.ms(window.transactionTime)) return clamped(form, target, window.transactionTime, 'before_transaction');
  if (at > form.ms(window.maxEligibility)) return clamped(form, target, window.maxEligibility, 'after_max_eligibility');
  return { eligibility: target, clamp: null };
}

function clamped<T>(form: InstantForm<T>, target: T, to: T, reason: Clamp['reason']): { eligibility: T; clamp: Clamp } {
  const zone = form.zone(target);
  return { eligibility: to, clamp: { requested: formatEpochMs(form.ms(target), zone), clampedTo: formatEpochMs(form.ms(to), zone), reason } };
}

/** Moves a target into [transaction time, max eligibility]; the clamp says from where and why. */
export function clampIntoWindow(target: DateTime, window: EligibilityWindow): { eligibility: DateTime; clamp: Clamp | null } {
  return intoWindow(DATE_TIME, target, window);
}

/** clampIntoWindow on Instants. */
export function clampInstantIntoWindow(target: Instant, window: InstantWindow): { eligibility: Instant; clamp: Clamp | null } {
  return intoWindow(INSTANT, target, window);
}

/**
 * Moves a target into the window, then into the future. The gateway takes whole seconds, so the result is a whole
 * second inside the window (rounded up, or down at the window's end).
 */
export function clampEligibility(target: DateTime, window: EligibilityWindow, now: DateTime): ClampResult {
  const earliest = nextGatewayMinute(now);
  if (earliest > window.maxEligibility) return { eligibility: null, reason: 'window_closed' };
  const inWindow = clampIntoWindow(target, window);
  if (inWindow.eligibility < earliest) return clamped(DATE_TIME, target, earliest, 'in_the_past');
  const eligibility = wholeSecondWithin(inWindow.eligibility, window.maxEligibility);
  if (+eligibility === +inWindow.eligibility) return inWindow;
  return { eligibility, clamp: inWindow.clamp && { ...inWindow.clamp, clampedTo: formatInstant(eligibility, target.zoneName ?? INDIA_TIME) } };
}

function wholeSecondWithin(dt: DateTime, max: DateTime): DateTime {
  const floor = dt.startOf('second');
  if (+floor === +dt) return dt;
  const ceil = floor.plus({ seconds: 1 });
  return ceil <= max ? ceil : floor;
}
