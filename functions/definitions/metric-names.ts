/** Holdback's CloudWatch metrics, named once: the runtime emits them (Powertools Metrics), the CDK stack alarms on them. */

export const METRICS_NAMESPACE = 'Holdback';

/** A metric's name and its CloudWatch unit. */
function metric<N extends string, U extends 'Count' | 'Seconds'>(name: N, unit: U): { readonly name: N; readonly unit: U } {
  return { name, unit };
}

/** Every metric the runtime emits, with its unit. */
export const METRIC = {
  /** A release the gateway applied. */
  applied: metric('ReleaseApplied', 'Count'),
  /** A release that ended FAILED (the gateway's answer was final, or its window closed while retrying). */
  failed: metric('ReleaseFailed', 'Count'),
  /** A send answered with something retryable; the release is scheduled again. */
  retried: metric('ReleaseRetried', 'Count'),
  /** A gateway answer 429 (rate limited): should stay zero with the one send path. */
  rateLimited: metric('GatewayRateLimited', 'Count'),
  /** A release the sweep had to re-drive (its schedule or its sender was lost). */
  sweepRedriven: metric('SweepRedriven', 'Count'),
  /** The gateway refused a date inside Holdback's window, or a settlement did not match its prediction. */
  drift: metric('DriftDetected', 'Count'),
  /** Release commands that arrived while the gateway secret did not hold the credentials (releases paused); the sweep sends them again. */
  releasesPaused: metric('ReleasesPausedDue', 'Count'),
  /** How late a send left against its planned time, in seconds. */
  sendLateness: metric('SendLatenessSeconds', 'Seconds'),
  /** A stream the audit checkpoint writer refused to sign: its records no longer extend the head it signed before. */
  auditHeadRefused: metric('AuditHeadRefused', 'Count'),
  /**
   * Held releases the gateway settles anyway within the settings' holdWarning (contract 6.4), counted by the sweep once
   * an hour (reading every vendor's held releases each minute would cost a query per vendor per minute).
   */
  heldSettlingSoon: metric('HeldSettlingSoon', 'Count'),
} as const;

export type MetricKey = keyof typeof METRIC;
