/** The eligibility window [transaction time, transaction time + Defer by Days] and the gateway's "not in the past". */
import { DateTime } from 'luxon';
import type { Clamp } from './types';
import { INDIA_TIME, formatInstant } from './dates';

/** Transaction time plus Defer by Days, counted in India days (the gateway's clock). */
export function maxEligibility(transactionTime: DateTime, deferByDays: number): DateTime {
  return transactionTime.setZone(INDIA_TIME).plus({ days: deferByDays });
}

/** The earliest time the gateway accepts: the next whole minute strictly after now. */
export function nextGatewayMinute(now: DateTime): DateTime {
  return now.setZone(INDIA_TIME).startOf('minute').plus({ minutes: 1 });
}

export interface EligibilityWindow {
  transactionTime: DateTime;
  maxEligibility: DateTime;
}

export type ClampResult =
  | { eligibility: DateTime; clamp: Clamp | null }
  | { eligibility: null; reason: 'window_closed' };

/** Moves a target into [transaction time, max eligibility]; the clamp says from where and why. */
export function clampIntoWindow(target: DateTime, window: EligibilityWindow): { eligibility: DateTime; clamp: Clamp | null } {
  if (target < window.transactionTime) return clamped(target, window.transactionTime, 'before_transaction');
  if (target > window.maxEligibility) return clamped(target, window.maxEligibility, 'after_max_eligibility');
  return { eligibility: target, clamp: null };
}

function clamped(target: DateTime, to: DateTime, reason: Clamp['reason']): { eligibility: DateTime; clamp: Clamp } {
  const zone = target.zoneName ?? INDIA_TIME;
  return { eligibility: to, clamp: { requested: formatInstant(target, zone), clampedTo: formatInstant(to, zone), reason } };
}

/**
 * Moves a target into the window, then into the future. The gateway takes whole seconds, so the result is a whole
 * second inside the window (rounded up, or down at the window's end).
 */
export function clampEligibility(target: DateTime, window: EligibilityWindow, now: DateTime): ClampResult {
  const earliest = nextGatewayMinute(now);
  if (earliest > window.maxEligibility) return { eligibility: null, reason: 'window_closed' };
  const inWindow = clampIntoWindow(target, window);
  if (inWindow.eligibility < earliest) return clamped(target, earliest, 'in_the_past');
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
