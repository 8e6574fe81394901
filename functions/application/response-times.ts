/** Stored times (India time) shown in the settings' timezone, as every API response promises. */
import { DateTime } from 'luxon';
import { formatInstant } from '../domain/dates';

export function inZone(stored: string, zone: string): string;
export function inZone(stored: string | null, zone: string): string | null;
export function inZone(stored: string | null, zone: string): string | null {
  if (stored === null) return null;
  const dt = DateTime.fromISO(stored, { setZone: true });
  return dt.isValid ? formatInstant(dt, zone) : stored;
}
