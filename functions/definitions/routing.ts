/** Event rules and schedule names, defined once: read by the CDK stack and by the local edge. */

/** The Lambda handlers a rule or schedule can target. */
export type HandlerName = 'orderEvents' | 'release' | 'sweep' | 'jobs' | 'exportJobs';

export const DEFAULT_EVENT_SOURCE = 'marketplace.orders';
export const HOLDBACK_EVENT_SOURCE = 'holdback';
export const DEFAULT_EVENT_BUS = 'default';
/** Schedule group of the one-time release schedules. */
export const RELEASE_SCHEDULE_GROUP = 'holdback-releases';
/**
 * The release queue, the one send path (issue 9): due release commands, consumed by the release function. The CDK
 * stack's event source mapping and the local edge's use the same numbers. Maximum concurrency bounds the release
 * function's parallel sends, so each container may use the gateway's rate divided by it.
 */
export const RELEASE_QUEUE = {
  name: 'holdback-releases',
  deadLetterName: 'holdback-releases-dlq',
  /** Records per invocation; the release function runs them at once. */
  batchSize: 10,
  /**
   * At most this many release invocations at once (Lambda's ScalingConfig, at least 2; the old reserved concurrency):
   * each container may send 600 / 10 = 60 a minute, and ten of them in flight keep the limit used when each send waits
   * on DynamoDB and the gateway.
   */
  maximumConcurrency: 10,
  /** Six times the release function's timeout (60 s), as AWS advises for SQS event sources. */
  visibilityTimeoutSeconds: 360,
  /** Receives before a message goes to the dead-letter queue (a poison message, or a function failing for ever). */
  maxReceiveCount: 5,
} as const;

/**
 * The job queue (contract 6.3): one message per step of a job (a page of a vendor's open releases, or an export),
 * consumed by the jobs function at a bounded concurrency, as the release queue is. SQS and Lambda rather than Step
 * Functions' Distributed Map: a job's steps are discovered as it reads (each page names the next), which a map over a
 * fixed item list does not fit, and the release path already runs on this engine (README "Jobs").
 */
export const JOB_QUEUE = {
  name: 'holdback-jobs',
  deadLetterName: 'holdback-jobs-dlq',
  /** One step per invocation: a step is a page of releases or a whole export, each its own unit of retry. */
  batchSize: 1,
  /** At most this many steps at once: bulk work leaves DynamoDB and the release path their room. */
  maximumConcurrency: 4,
  /** The jobs function's timeout, seconds; a step cut by it is delivered again and carries on. */
  functionTimeoutSeconds: 300,
  /** Six times the function's timeout, as AWS advises for SQS event sources. */
  visibilityTimeoutSeconds: 1_800,
  /** Receives before a step goes to the dead-letter queue; on the last one its job ends `failed` with the reason. */
  maxReceiveCount: 5,
} as const;

/**
 * The export job queue: the steps of the jobs that write or read files (outcomes and audit exports, an audit
 * verification), consumed by the export-jobs function, which alone carries S3, KMS, hashing and CSV; the job queue's
 * jobs function keeps the release walks and previews (issue 17.7: each function bundles only what it uses). The same
 * engine and numbers as the job queue; a step is routed by its job's kind (EXPORT_JOB_KINDS) when it is enqueued.
 */
export const EXPORT_JOB_QUEUE = { ...JOB_QUEUE, name: 'holdback-export-jobs', deadLetterName: 'holdback-export-jobs-dlq' } as const;
/** The job kinds whose steps go to the export job queue; every other kind's go to the job queue. */
export const EXPORT_JOB_KINDS = ['outcomes_export', 'audit_export', 'audit_verify'] as const;

/** The periodic sweep that re-drives anything overdue or retryable. */
export const SWEEP_SCHEDULE = { name: 'holdback-sweep', expression: 'rate(1 minute)', target: 'sweep' as HandlerName };

export const ORDER_DETAIL_TYPES = [
  'order.paid', 'order.delivered', 'order.dispute_opened', 'order.dispute_closed', 'order.cancelled',
] as const;

/** Contract section 3: what Holdback emits, with source `holdback`. */
export const HOLDBACK_DETAIL_TYPES = ['vendor.release_applied', 'vendor.release_failed', 'config.drift_detected'] as const;

/**
 * What each function puts on the bus, exactly: its role may put these and nothing else (lib/event-intake.ts), and the
 * local edge lets Holdback's functions put only these (local/edge/bus-policy.ts). The release function sends and
 * records the gateway's answers (applied, failed, drift); the webhooks confirm a held send from the settlement (applied),
 * check a settlement against its prediction (drift) and republish a payment as `order.paid` under the marketplace's
 * source. The others change releases without emitting.
 */
export const EMITTED_EVENTS: Record<HandlerName | 'api' | 'webhooks', { holdback: readonly (typeof HOLDBACK_DETAIL_TYPES)[number][]; order: readonly (typeof ORDER_DETAIL_TYPES)[number][] }> = {
  orderEvents: { holdback: [], order: [] },
  release: { holdback: ['vendor.release_applied', 'vendor.release_failed', 'config.drift_detected'], order: [] },
  sweep: { holdback: [], order: [] },
  jobs: { holdback: [], order: [] },
  exportJobs: { holdback: [], order: [] },
  api: { holdback: [], order: [] },
  webhooks: { holdback: ['vendor.release_applied', 'config.drift_detected'], order: ['order.paid'] },
};

/**
 * The access key id Holdback's functions sign with against the local edge: the local bus policy's name for them (on
 * AWS each function's role), the only principal that may put source `holdback` there.
 */
export const LOCAL_FUNCTIONS_ACCESS_KEY = 'holdback-local-functions';

/** A subset of EventBridge's pattern language: exact strings and `{prefix}` per field. */
export type PatternValue = string | { prefix: string };
export interface EventPattern {
  source: PatternValue[];
  'detail-type'?: PatternValue[];
}

export interface EventRule {
  name: string;
  description: string;
  pattern: EventPattern;
  target: HandlerName;
}

/** The rules of the bus. `source` is the marketplace's event source (HOLDBACK_EVENT_SOURCE). */
export function eventRules(source: string = DEFAULT_EVENT_SOURCE): EventRule[] {
  return [
    {
      name: 'holdback-order-events',
      description: 'Marketplace order events to the order-events handler',
      // Every detail-type of the source goes to the handler, so that a malformed or unknown one is rejected
      // with a reason an operator can list, instead of vanishing silently at the bus.
      pattern: { source: [source] },
      target: 'orderEvents',
    },
  ];
}

function valueMatches(candidates: PatternValue[], value: unknown): boolean {
  if (typeof value !== 'string') return false;
  return candidates.some((c) => (typeof c === 'string' ? c === value : value.startsWith(c.prefix)));
}

/** Whether an event envelope ({source, 'detail-type'}) matches a rule's pattern. */
export function patternMatches(pattern: EventPattern, event: { source?: unknown; 'detail-type'?: unknown }): boolean {
  if (!valueMatches(pattern.source, event.source)) return false;
  if (pattern['detail-type'] && !valueMatches(pattern['detail-type'], event['detail-type'])) return false;
  return true;
}

/** The route the gateway posts its webhooks to, verified by its signature: the API's locally, the webhooks function URL's on AWS (open, no IAM). */
export const GATEWAY_WEBHOOK_PATH = '/webhooks/gateway';
