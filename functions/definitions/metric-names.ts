/** Holdback's CloudWatch metrics, named once: the runtime emits them (Powertools Metrics), the CDK stack alarms on them. */

export const METRICS_NAMESPACE = 'Holdback';

/** Every metric the runtime emits, with its unit. */
export const METRIC = {
  /** A release the gateway applied. */
  applied: { name: 'ReleaseApplied', unit: 'Count' },
  /** A release that ended FAILED (the gateway's answer was final, or its window closed while retrying). */
  failed: { name: 'ReleaseFailed', unit: 'Count' },
  /** A send answered with something retryable; the release is scheduled again. */
  retried: { name: 'ReleaseRetried', unit: 'Count' },
  /** A gateway answer 429 (rate limited): should stay zero with the one send path. */
  rateLimited: { name: 'GatewayRateLimited', unit: 'Count' },
  /** A release the sweep had to re-drive (its schedule or its sender was lost). */
  sweepRedriven: { name: 'SweepRedriven', unit: 'Count' },
  /** The gateway refused a date inside Holdback's window, or a settlement did not match its prediction. */
  drift: { name: 'DriftDetected', unit: 'Count' },
  /** Release commands that arrived while the gateway secret did not hold the credentials (releases paused); the sweep sends them again. */
  releasesPaused: { name: 'ReleasesPausedDue', unit: 'Count' },
  /** How late a send left against its planned time, in seconds. */
  sendLateness: { name: 'SendLatenessSeconds', unit: 'Seconds' },
  /** A stream the audit checkpoint writer refused to sign: its records no longer extend the head it signed before. */
  auditHeadRefused: { name: 'AuditHeadRefused', unit: 'Count' },
  /**
   * Held releases the gateway settles anyway within the settings' holdWarning (contract 6.4), counted by the sweep once
   * an hour (reading every vendor's held releases each minute would cost a query per vendor per minute).
   */
  heldSettlingSoon: { name: 'HeldSettlingSoon', unit: 'Count' },
} as const;

export type MetricKey = keyof typeof METRIC;
