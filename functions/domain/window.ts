/** The eligibility window [transaction time, transaction time + Defer by Days] and the gateway's "not in the past". */
import { DAY_MS } from '../../kit/civil-days';
import { INDIA_OFFSET_MINUTES, Instant } from './instant';
import type { Clamp } from './types';

const MINUTE_MS = 60_000;

/** Transaction time plus Defer by Days, counted in India days (the gateway's clock, 24 hours each), in India time. */
export function maxEligibility(transactionTime: Instant, deferByDays: number): Instant {
  return Instant.withOffset(transactionTime.ms + deferByDays * DAY_MS, INDIA_OFFSET_MINUTES);
}

/**
 * How far ahead of now an eligibility sent "at the next minute" must lie: the gateway refuses a time in the past, and
 * a minute that is due a second after it was chosen has often passed by the time the PUT is processed (the client
 * may wait for its rate limit and retry). Sent at 10:00:50, "the next minute" is therefore 10:02, not 10:01.
 */
export const SEND_MARGIN_MS = 30_000;

/** The earliest time the gateway will still accept when the PUT arrives: the first whole minute after now + the margin. */
export function nextGatewayMinute(now: Instant): Instant {
  return Instant.withOffset(nextGatewayMinuteMs(now.ms), INDIA_OFFSET_MINUTES);
}

/** nextGatewayMinute in epoch milliseconds: India's offset is whole minutes, so its minutes start where UTC's do. */
export function nextGatewayMinuteMs(nowMs: number): number {
  return Math.floor((nowMs + SEND_MARGIN_MS) / MINUTE_MS) * MINUTE_MS + MINUTE_MS;
}

export interface EligibilityWindow {
  transactionTime: Instant;
  maxEligibility: Instant;
}

export type ClampResult =
  | { eligibility: Instant; clamp: Clamp | null }
  | { eligibility: null; reason: 'window_closed' };

/** The clamp of `target` to `to`; its texts are written in the target's offset. */
function clamped(target: Instant, to: Instant, reason: Clamp['reason']): { eligibility: Instant; clamp: Clamp } {
  return { eligibility: to, clamp: { requested: target.toISO(), clampedTo: to.inOffset(target.offset).toISO(), reason } };
}

/** Moves a target into [transaction time, max eligibility]; the clamp says from where and why. */
export function clampIntoWindow(target: Instant, window: EligibilityWindow): { eligibility: Instant; clamp: Clamp | null } {
  if (target.ms < window.transactionTime.ms) return clamped(target, window.transactionTime, 'before_transaction');
  if (target.ms > window.maxEligibility.ms) return clamped(target, window.maxEligibility, 'after_max_eligibility');
  return { eligibility: target, clamp: null };
}

/**
 * Moves a target into the window, then into the future. The gateway takes whole seconds, so the result is a whole
 * second inside the window (rounded up, or down at the window's end).
 */
export function clampEligibility(target: Instant, window: EligibilityWindow, now: Instant): ClampResult {
  const earliest = nextGatewayMinute(now);
  if (earliest.ms > window.maxEligibility.ms) return { eligibility: null, reason: 'window_closed' };
  const inWindow = clampIntoWindow(target, window);
  if (inWindow.eligibility.ms < earliest.ms) return clamped(target, earliest, 'in_the_past');
  const eligibility = wholeSecondWithin(inWindow.eligibility, window.maxEligibility);
  if (eligibility.ms === inWindow.eligibility.ms) return inWindow;
  return { eligibility, clamp: inWindow.clamp && { ...inWindow.clamp, clampedTo: eligibility.inOffset(target.offset).toISO() } };
}

function wholeSecondWithin(at: Instant, max: Instant): Instant {
  const floor = Math.floor(at.ms / 1000) * 1000;
  if (floor === at.ms) return at;
  return floor + 1000 <= max.ms ? at.plusMs(floor + 1000 - at.ms) : at.plusMs(floor - at.ms);
}
