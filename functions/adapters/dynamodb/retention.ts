/** How long each kind of record that may expire is kept, and the TTL stamp (`expiresAt`, epoch seconds) it gets. */
import { Instant } from '../../domain/instant';
import { TTL_ATTRIBUTE } from '../../definitions/tables';

export { RETENTION_KINDS, type RetentionDays } from '../../definitions/retention-kinds';

const SECONDS_A_DAY = 86_400;

/** `{expiresAt}` (whole epoch seconds) `days` after `at`; nothing when the kind is kept for ever. */
export function expiryStamp(at: Instant | string, days: number | undefined, field: string): Record<string, number> {
  if (days === undefined) return {};
  const ms = (at instanceof Instant ? at : Instant.parse(at, field)).ms;
  return { [TTL_ATTRIBUTE]: Math.floor(ms / 1000) + days * SECONDS_A_DAY };
}
