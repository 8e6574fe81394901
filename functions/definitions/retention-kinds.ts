/** The kinds of record that may expire: the runtime stamps them, the CDK stack turns the table's TTL on for them. */

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
