/** How long each kind of record that may expire is kept, and the TTL stamp (`expiresAt`, epoch seconds) it gets. */
import { parseMoment } from '../../domain/dates';
import { TTL_ATTRIBUTE } from './tables';

/**
 * Days kept per kind of record (HOLDBACK_RETENTION_DAYS): orders with their releases (after the transaction time),
 * order events (after receipt), rejected events (after `at`). A kind left out never expires; config items and the
 * audit log are not a kind here, so they never carry the stamp.
 */
export interface RetentionDays {
  orders?: number;
  events?: number;
  rejected?: number;
}

export const RETENTION_KINDS = ['orders', 'events', 'rejected'] as const;

const SECONDS_A_DAY = 86_400;

/** `{expiresAt}` (whole epoch seconds) `days` after `at`; nothing when the kind is kept for ever. */
export function expiryStamp(at: string, days: number | undefined, field: string): Record<string, number> {
  if (days === undefined) return {};
  return { [TTL_ATTRIBUTE]: Math.floor(parseMoment(at, field).ms / 1000) + days * SECONDS_A_DAY };
}
