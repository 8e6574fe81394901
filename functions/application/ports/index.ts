/**
 * The interfaces the use cases need from the outside world; adapters implement them, tests use fakes. Each area's
 * ports are in their own file; this index names them all, and `Dependencies` is what a composition root builds.
 */
import type { Instant } from '../../domain/instant';
import type { AuditArchive, AuditCopy, AuditKey, AuditLog } from './audit';
import type { ConfigReader, OpenOrderPolicyRepository, PolicyImportRepository, PolicyRepository, PreviewRepository, SettingsRepository, VendorHoldRepository } from './config';
import type { ExportStore, JobQueue, JobRepository } from './jobs';
import type { ExposureLedger, OrderRepository, RejectedEventRepository, ReleaseReads } from './orders';
import type { EligibilityGateway, EventPublisher, GatewayOrders, ReleaseQueue, ReleaseScheduler } from './sending';
export * from './config';
export * from './orders';
export * from './sending';
export * from './audit';
export * from './jobs';

/** Time as the runtime sees it (the local edge's shared clock, or the system clock on AWS). */
export interface Clock {
  now(): Instant;
}

/** Thrown by a conditional write whose expected version no longer holds. */
export class VersionConflictError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'VersionConflictError';
  }
}

/** Secrets the use cases need; kept apart from the ports so that nothing logs them by accident. */
export interface RuntimeSecrets {
  /** Key of the gateway's webhook signature (the gateway client secret). */
  /** Read at run time (cached): a rotated secret applies without a deploy. */
  webhookSecret(): Promise<string>;
}

/** Counts and measures of the release flow (names in functions/definitions/metric-names.ts), for alarms. */
export interface ReleaseMetrics {
  /** Adds `value` (default 1) to the metric: a count, or a measure in the metric's unit. */
  record(key: import('../../definitions/metric-names').MetricKey, value?: number): void;
}

export interface Logger {
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

/**
 * Who makes a request (contract 6.4): on AWS the IAM principal API Gateway proved from the SigV4 signature, locally
 * `local:unauthenticated` (the body's `actor` stands in). Set per API request; absent for events, schedules and jobs.
 */
export interface Caller {
  /** The principal's ARN on AWS (`requestContext.authorizer.iam.userArn`), `local:unauthenticated` locally. */
  principal: string;
  authenticated: boolean;
  /** The name a signed caller is known by (session or user name); null locally. */
  name: string | null;
  /** The principal's AWS Organizations id, when it has one. */
  orgId: string | null;
  /** Set while an approved change is applied (four eyes): the approval that allows it. */
  approval?: { approvalId: string };
}

export type { ApprovalRepository } from './approvals';

/** Everything a use case may need, built once per runtime by a composition root. */
export interface Dependencies {
  clock: Clock;
  settings: SettingsRepository;
  policies: PolicyRepository;
  config: ConfigReader;
  orders: OrderRepository;
  rejected: RejectedEventRepository;
  scheduler: ReleaseScheduler;
  gateway: EligibilityGateway;
  gatewayOrders: GatewayOrders;
  publisher: EventPublisher;
  queue: ReleaseQueue;
  audit: AuditLog;
  /** The same store as `audit`, read: verification, export, timelines, checkpoints. */
  auditArchive: AuditArchive;
  /**
   * AWS: the write-once copy of the log, which verification and export read (and compare with the table); absent or
   * null locally, where the table is the only store.
   */
  auditCopy?: AuditCopy | null;
  /** The checkpoints' key; null where none is configured (no checkpoints are written, verification says so). */
  auditKey: AuditKey | null;
  holds: VendorHoldRepository;
  exposure: ExposureLedger;
  reads: ReleaseReads;
  previews: PreviewRepository;
  policyImports: PolicyImportRepository;
  openOrderPolicies: OpenOrderPolicyRepository;
  jobs: JobRepository;
  jobQueue: JobQueue;
  exports: ExportStore;
  logger: Logger;
  secrets: RuntimeSecrets;
  /** Four-eyes approvals (contract 6.4). */
  approvals: import('./approvals').ApprovalRepository;
  /** The caller of the API request being served (contract 6.4); absent outside the API. */
  caller?: Caller;
  /**
   * Whether the gateway credentials are there (the secret filled in): releases run only then, so a stack whose secret
   * is still its placeholder pauses by itself and resumes once it is filled in, with no deploy. Absent: always.
   */
  gatewayReady?: () => Promise<boolean>;
  /** Open releases a preview covers in its own answer at most; above, it is a job (absent: PREVIEW_INLINE_RELEASES). */
  previewInlineReleases?: number;
  /**
   * Releases a preview covers at most for the PUT naming its previewId to check them one by one; above, it checks the
   * versions and the ends of the open index only (absent: STRICT_PREVIEW_RELEASES, config/preview-changes.ts).
   */
  previewStrictReleases?: number;
  /** Rows an outcomes export writes a step (absent: EXPORT_PART_ROWS); HOLDBACK_EXPORT_PART_ROWS sets another. */
  exportPartRows?: number;
  /** Objects of the audit log's write-once copy a verification or export step reads (absent: COPY_STEP_OBJECTS, audit-copy.ts). */
  auditCopyStepObjects?: number;
  /** Signed audit records GET /audit/verify checks in its answer at most; above, a job (absent: AUDIT_VERIFY_INLINE_RECORDS). */
  auditVerifyInlineRecords?: number;
}
