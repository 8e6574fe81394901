/** Stored times (India time) shown in the settings' timezone, as every API response promises. */
import { DateTime } from 'luxon';
import { formatInstant } from '../domain/dates';
import { Instant } from '../domain/instant';

export function inZone(stored: Instant | string, zone: string): string;
export function inZone(stored: Instant | string | null, zone: string): string | null;
export function inZone(stored: Instant | string | null, zone: string): string | null {
  if (stored === null) return null;
  if (stored instanceof Instant) return stored.in(zone).toISO();
  const dt = DateTime.fromISO(stored, { setZone: true });
  return dt.isValid ? formatInstant(dt, zone) : stored;
}

/** A record as an answer shows it: the times named by K as text (null stays null). */
export type Shown<T, K extends keyof T> = Omit<T, K> & { [P in K]: null extends T[P] ? string | null : string };
