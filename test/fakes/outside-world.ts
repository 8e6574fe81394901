/** Fakes of the outside systems: a recording scheduler, a scriptable gateway, a recording publisher and logger. */
import type { DateTime } from 'luxon';
import type {
  AuditEntry, AuditLog, BeforePut, EligibilityGateway, EventPublisher, GatewayCallResult, Logger, ReleaseQueue, ReleaseScheduler,
} from '../../functions/application/ports';
import { formatInstant, parseGatewayDate } from '../../functions/domain/dates';
import type { Instant } from '../../functions/domain/instant';
import { attemptOf } from '../../functions/domain/gateway-answer';
import type { GatewayAnswer, HoldbackEvent, ReleaseCommand } from '../../functions/domain/types';
import type { FakeClock } from './clock';
import { onTheWire } from './copy';

export interface ScheduledRelease {
  command: ReleaseCommand;
  at: DateTime;
}

/** Keeps schedules by name like EventBridge Scheduler; `takeDue` hands over the ones whose time has come. */
export class RecordingScheduler implements ReleaseScheduler {
  readonly pending = new Map<string, ScheduledRelease>();
  readonly created: ScheduledRelease[] = [];
  readonly cancelled: string[] = [];

  async schedule(command: ReleaseCommand, at: Instant): Promise<void> {
    if (this.pending.has(command.releaseKey)) return;
    const entry = { command: { ...command }, at: at.toDateTime() };
    this.pending.set(command.releaseKey, entry);
    this.created.push(entry);
  }

  async cancel(releaseKey: string): Promise<void> {
    if (this.pending.delete(releaseKey)) this.cancelled.push(releaseKey);
  }

  /** Removes and returns the schedules due at `now`, oldest first (a one-time schedule deletes itself after firing). */
  takeDue(now: Instant): ScheduledRelease[] {
    const due = [...this.pending.values()].filter((s) => s.at.toMillis() <= now.ms).sort((a, b) => +a.at - +b.at);
    for (const s of due) this.pending.delete(s.command.releaseKey);
    return due;
  }
}

const OK_ANSWER: GatewayAnswer = {
  kind: 'response', httpStatus: 200, status: 'OK', subCode: '200', message: 'Updated vendor settlement eligibility date',
};

export interface GatewayCall {
  orderId: string;
  vendorId: string;
  eligibility: string;
  at: string;
}

/** A scripted answer, optionally given after the gateway applied the PUT (a lost answer: `hang_after_apply`). */
export type ScriptedAnswer = GatewayAnswer & { appliedFirst?: boolean };

/**
 * Answers each PUT with the next scripted answer (OK once the script is empty) and records the calls. Like the
 * adapter, it runs the caller's `beforePut` before the PUT "leaves". A PUT answered OK (or applied before a lost
 * answer) is applied: `applied` (when given, e.g. the fake order recon's map) gets the eligibility.
 */
export class ScriptedGateway implements EligibilityGateway {
  readonly calls: GatewayCall[] = [];
  private readonly script: ScriptedAnswer[] = [];
  /** Where an applied eligibility is kept, keyed `${orderId}/${vendorId}` (ISO 8601, India time). */
  applied: Map<string, string> | null = null;

  constructor(private readonly clock: FakeClock) {}

  answerNext(...answers: ScriptedAnswer[]): void {
    this.script.push(...answers);
  }

  /** Runs before each call (see StepHook in repositories.ts). */
  beforeStep: ((step: string, subject: { orderId?: string; vendorId?: string }) => Promise<void>) | null = null;

  async updateEligibility(orderId: string, vendorId: string, eligibility: string, beforePut?: BeforePut): Promise<GatewayCallResult> {
    const stamp = this.clock.now().in('Asia/Kolkata').wholeSecond();
    const at = stamp.toText();
    await beforePut?.(1, stamp);
    // The step is the PUT arriving at the gateway, after the caller recorded it.
    await this.beforeStep?.('gateway.updateEligibility', { orderId, vendorId });
    this.calls.push({ orderId, vendorId, eligibility, at });
    const { appliedFirst, ...final }: ScriptedAnswer = this.script.shift() ?? OK_ANSWER;
    if (this.applied && (appliedFirst || (final.kind === 'response' && final.status === 'OK'))) {
      this.applied.set(`${orderId}/${vendorId}`, formatInstant(parseGatewayDate(eligibility)!, 'Asia/Kolkata'));
    }
    return { attempts: [attemptOf(final as GatewayAnswer, eligibility, stamp)], final: final as GatewayAnswer };
  }
}


export class RecordingPublisher implements EventPublisher {
  readonly events: HoldbackEvent[] = [];
  readonly orderEvents: { detailType: string; detail: object }[] = [];

  async publish(events: HoldbackEvent[]): Promise<void> {
    this.events.push(...onTheWire(events));
  }

  async publishOrderEvent(detailType: string, detail: object): Promise<void> {
    this.orderEvents.push({ detailType, detail: onTheWire(detail) });
  }
}

/** Keeps enqueued commands like a queue; `take` hands them over (the release function's consumer in use-case tests). */
export class RecordingQueue implements ReleaseQueue {
  readonly waiting: ReleaseCommand[] = [];
  readonly enqueued: ReleaseCommand[] = [];

  async enqueue(commands: ReleaseCommand[]): Promise<void> {
    this.waiting.push(...structuredClone(commands));
    this.enqueued.push(...structuredClone(commands));
  }

  take(): ReleaseCommand[] {
    return this.waiting.splice(0, this.waiting.length);
  }
}

/** Keeps audit entries in order, as appended. */
export class RecordingAuditLog implements AuditLog {
  readonly entries: AuditEntry[] = [];

  async append(entries: AuditEntry[]): Promise<void> {
    this.entries.push(...onTheWire(entries));
  }
}

export interface LogLine {
  level: 'info' | 'warn' | 'error';
  message: string;
  fields?: Record<string, unknown>;
}

export class RecordingLogger implements Logger {
  readonly lines: LogLine[] = [];
  info(message: string, fields?: Record<string, unknown>): void { this.lines.push({ level: 'info', message, fields }); }
  warn(message: string, fields?: Record<string, unknown>): void { this.lines.push({ level: 'warn', message, fields }); }
  error(message: string, fields?: Record<string, unknown>): void { this.lines.push({ level: 'error', message, fields }); }
}
