/** One-time EventBridge Scheduler schedules that put a release command on the release queue at the release's send time. */
import { IANAZone } from 'luxon';
import type { CreateScheduleCommandInput, RetryPolicy } from '@aws-sdk/client-scheduler';
import type { ReleaseCommand } from '../../domain/types';
import { backoffDelayMs, type Backoff } from '../../../kit/backoff';
import type { ReleaseScheduler } from '../../application/ports';
import { RELEASE_SCHEDULE_GROUP } from '../../definitions/routing';
import { Instant, MINUTE_MS } from '../../domain/instant';

/**
 * Scheduler's two calls the adapter makes: without the SDK's client in the functions (scheduler-requests.ts); an error
 * is named by Scheduler's code and carries its message, as the SDK client's errors are.
 */
export interface ScheduleCalls {
  createSchedule(input: CreateScheduleCommandInput): Promise<unknown>;
  deleteSchedule(input: { Name: string; GroupName?: string }): Promise<unknown>;
}

export interface EventBridgeReleaseSchedulerOptions {
  /** ARN of the release queue (SQS), the schedules' target: a due release takes the one send path. */
  releaseQueueArn: string;
  /** Role Scheduler assumes to send to the queue (sqs:SendMessage; the only role it may pass). */
  schedulerRoleArn: string;
  groupName?: string;
  /** IANA zone of the `at()` expression; default "Asia/Kolkata", the gateway's wall clock. */
  timezone?: string;
  /** Default: Scheduler's maximum, 185 retries within 24 hours (of the SendMessage); the sweep re-drives anything lost after that. */
  retryPolicy?: RetryPolicy;
  /** Optional SQS dead-letter queue for sends that exhausted their retries. */
  deadLetterArn?: string;
  /** How long CreateSchedule waits in all for a new role to propagate (see `isRoleNotYetAssumable`). Default 30 s. */
  rolePropagationWaitMs?: number;
  /** Waits between those tries (injected by tests); default setTimeout. */
  sleep?: (ms: number) => Promise<void>;
}

/** How long CreateSchedule waits in all for a new role to propagate, unless told otherwise. */
export const DEFAULT_ROLE_PROPAGATION_WAIT_MS = 30_000;
/**
 * The wait for a role to propagate is one budget per this period, shared by every CreateSchedule of the container: a
 * request that schedules many releases while the role is not yet assumable waits the budget once, not once per release
 * (which would pass a function's timeout). Longer than any function's timeout.
 */
const PROPAGATION_PERIOD_MS = 60_000;
/** First wait after a propagation refusal, doubled after each one up to the cap (no jitter): about 30 s in 7 tries. */
const PROPAGATION_BACKOFF: Backoff = { firstMs: 500, capMs: 8_000, jitter: 0 };

/**
 * Right after a deploy, Scheduler may not yet see that a freshly created role trusts it (IAM propagates in seconds),
 * and refuses CreateSchedule with a ValidationException saying the execution role cannot be assumed. Only that
 * refusal is worth waiting for: any other ValidationException is a real mistake and is reported at once.
 */
export function isRoleNotYetAssumable(error: unknown): boolean {
  const { name, message } = (error ?? {}) as { name?: unknown; message?: unknown };
  return name === 'ValidationException' && typeof message === 'string' && /execution role .*assume the role/i.test(message);
}

const SCHEDULE_NAME = /^[0-9a-zA-Z\-_.]{1,64}$/;

/**
 * The `at()` expression for an instant: Scheduler fires with one-minute precision, so the instant is rounded up to the
 * next whole minute (a release never fires before it is due).
 */
export function atExpression(at: Instant, timezone: string): string {
  // The zone object, not its name: luxon checks a zone given by name on every use by formatting a date in it (a new
  // Intl.DateTimeFormat each time, the largest luxon cost of planning in the CPU profile); IANAZone.create checks a
  // name once and keeps its zone.
  const zone = IANAZone.create(timezone);
  if (!zone.isValid) throw new Error(`timezone: "${timezone}" is not an IANA zone; send e.g. "Asia/Kolkata"`);
  // On the number: the next whole minute, written in the zone's offset then (India time's is fixed, so no Intl call;
  // done by luxon it was a twentieth of the order-events function's CPU in the ingest profile). An offset of whole
  // minutes keeps UTC's whole minutes whole; a zone's old offset of seconds (local mean time) takes luxon's way.
  // By its name: Instant.at knows a fixed zone's offset by name (India time's without asking Intl), whereas a zone
  // object's offset is luxon's Intl formatToParts at every call (0.7% of the ingest's CPU in its profile).
  const due = Instant.at(Math.ceil(at.ms / MINUTE_MS) * MINUTE_MS, timezone);
  if (Number.isInteger(due.offset)) return `at(${due.toISO().slice(0, 19)})`;
  const local = at.toDateTime().setZone(zone);
  const minute = local.startOf('minute');
  return `at(${(minute < local ? minute.plus({ minutes: 1 }) : minute).toFormat("yyyy-MM-dd'T'HH:mm:ss")})`;
}

function hasName(error: unknown, name: string): boolean {
  return (error as { name?: unknown } | null)?.name === name;
}

export class EventBridgeReleaseScheduler implements ReleaseScheduler {
  private readonly groupName: string;
  private readonly timezone: string;
  private readonly retryPolicy: RetryPolicy;
  private readonly propagationWaitMs: number;
  private readonly sleep: (ms: number) => Promise<void>;
  /** The propagation waits spent in the current period (see PROPAGATION_PERIOD_MS). */
  private propagation = { since: 0, spentMs: 0 };

  constructor(private readonly client: ScheduleCalls, private readonly options: EventBridgeReleaseSchedulerOptions) {
    this.groupName = options.groupName ?? RELEASE_SCHEDULE_GROUP;
    this.timezone = options.timezone ?? 'Asia/Kolkata';
    this.retryPolicy = options.retryPolicy ?? { MaximumRetryAttempts: 185, MaximumEventAgeInSeconds: 86_400 };
    this.propagationWaitMs = options.rolePropagationWaitMs ?? DEFAULT_ROLE_PROPAGATION_WAIT_MS;
    this.sleep = options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
  }

  /** What is left of this period's propagation budget; a new period starts with all of it. */
  private propagationBudgetLeft(): number {
    const now = Date.now();
    if (now - this.propagation.since > PROPAGATION_PERIOD_MS) this.propagation = { since: now, spentMs: 0 };
    return this.propagationWaitMs - this.propagation.spentMs;
  }

  async schedule(command: ReleaseCommand, at: Instant): Promise<void> {
    const name = this.requireName(command.releaseKey);
    const input: CreateScheduleCommandInput = {
      Name: name,
      GroupName: this.groupName,
      ScheduleExpression: atExpression(at, this.timezone),
      ScheduleExpressionTimezone: this.timezone,
      FlexibleTimeWindow: { Mode: 'OFF' },
      // Finished one-time schedules would otherwise stay and count toward the quota.
      ActionAfterCompletion: 'DELETE',
      State: 'ENABLED',
      Description: `Holdback release of order ${command.orderId}, vendor ${command.vendorId}`,
      Target: {
        Arn: this.options.releaseQueueArn,
        RoleArn: this.options.schedulerRoleArn,
        // The queue target sends this text as the message body: the command, as order events and the sweep enqueue it.
        Input: JSON.stringify(command),
        RetryPolicy: this.retryPolicy,
        ...(this.options.deadLetterArn ? { DeadLetterConfig: { Arn: this.options.deadLetterArn } } : {}),
      },
    };
    for (let attempt = 1; ; attempt += 1) {
      try {
        // A fresh idempotency token per try, as the SDK's client gave each command.
        await this.client.createSchedule(input);
        return;
      } catch (error) {
        // The name is deterministic per send, so a conflict means this very release is already scheduled.
        if (hasName(error, 'ConflictException')) return;
        const left = isRoleNotYetAssumable(error) ? this.propagationBudgetLeft() : 0;
        if (left <= 0) throw error;
        const pause = Math.min(backoffDelayMs(attempt, PROPAGATION_BACKOFF, () => 0), left);
        this.propagation.spentMs += pause;
        await this.sleep(pause);
      }
    }
  }

  async cancel(releaseKey: string): Promise<void> {
    const name = this.requireName(releaseKey);
    try {
      await this.client.deleteSchedule({ Name: name, GroupName: this.groupName });
    } catch (error) {
      // Already fired (and deleted after completion) or already cancelled: either way, nothing is pending.
      if (hasName(error, 'ResourceNotFoundException')) return;
      throw error;
    }
  }

  private requireName(releaseKey: string): string {
    if (typeof releaseKey !== 'string' || !SCHEDULE_NAME.test(releaseKey)) {
      throw new Error(`releaseKey: "${String(releaseKey).slice(0, 80)}" is not a schedule name; send 1 to 64 characters of 0-9, a-z, A-Z, "-", "_" or "."`);
    }
    return releaseKey;
  }
}
