/** The local EventBridge Scheduler: its REST operations, with each schedule armed as a timer on the shared clock. */
import { DateTime, IANAZone } from 'luxon';
import type { HandlerName } from '../../functions/definitions/routing';
import type { SharedClock, TimerHandle } from '../clock';
import { InFlight, backoffMs, isTargetNotReady, pause } from './in-flight';
import type { LambdaTarget } from './bus';
import { SqsError, type LocalQueues } from './queue';
import { MemoryRecords, type RecordStore } from '../../kit/durable-file';

/** Function names of the local handlers; a schedule's Target.Arn names one of them. */
export const LOCAL_FUNCTION_NAMES: Record<HandlerName, string> = {
  orderEvents: 'holdback-order-events',
  release: 'holdback-release',
  sweep: 'holdback-sweep',
  jobs: 'holdback-jobs',
  exportJobs: 'holdback-export-jobs',
};

export const LOCAL_REGION = 'us-east-1';
export const LOCAL_ACCOUNT_ID = '000000000000';

/** The Lambda ARN that stands for a handler locally, e.g. `arn:aws:lambda:us-east-1:000000000000:function:holdback-release`. */
export function localFunctionArn(name: HandlerName, region = LOCAL_REGION, accountId = LOCAL_ACCOUNT_ID): string {
  return `arn:aws:lambda:${region}:${accountId}:function:${LOCAL_FUNCTION_NAMES[name]}`;
}

/** The local role ARN a schedule's Target.RoleArn can name (the edge does not check roles). */
export function localSchedulerRoleArn(accountId = LOCAL_ACCOUNT_ID): string {
  return `arn:aws:iam::${accountId}:role/holdback-scheduler`;
}

/** The handler a Lambda ARN (any region, account or qualifier) or bare function name stands for, if any. */
export function handlerForArn(arn: string): HandlerName | null {
  const match = /^arn:aws[a-z-]*:lambda:[^:]*:[^:]*:function:([^:]+)(?::[^:]+)?$/.exec(arn);
  const functionName = match ? match[1] : arn;
  for (const [handler, name] of Object.entries(LOCAL_FUNCTION_NAMES) as Array<[HandlerName, string]>) {
    if (functionName === name || functionName === handler) return handler;
  }
  return null;
}

export class SchedulerError extends Error {
  constructor(readonly type: 'ValidationException' | 'ConflictException' | 'ResourceNotFoundException', readonly status: number, message: string) {
    super(message);
  }
}

const invalid = (message: string) => new SchedulerError('ValidationException', 400, message);

type Timing = { kind: 'at'; at: number } | { kind: 'rate'; periodMs: number };

/** What a schedule's Target.Arn names locally: a handler (Lambda target) or a queue (SQS target, Input as the body). */
type Destination = { kind: 'function'; handler: HandlerName } | { kind: 'queue'; queue: string };

interface ScheduleTarget {
  Arn: string;
  RoleArn: string;
  Input?: string;
  RetryPolicy?: { MaximumRetryAttempts?: number; MaximumEventAgeInSeconds?: number };
  DeadLetterConfig?: { Arn?: string };
}

/** One schedule as stored: the fields the API returns plus its timer. */
interface ScheduleRecord {
  Name: string;
  GroupName: string;
  Arn: string;
  ScheduleExpression: string;
  ScheduleExpressionTimezone?: string;
  StartDate?: number;
  EndDate?: number;
  Description?: string;
  State: 'ENABLED' | 'DISABLED';
  KmsKeyArn?: string;
  Target: ScheduleTarget;
  FlexibleTimeWindow: { Mode: 'OFF' | 'FLEXIBLE'; MaximumWindowInMinutes?: number };
  ActionAfterCompletion: 'NONE' | 'DELETE';
  CreationDate: number;
  LastModificationDate: number;
  destination: Destination;
  timing: Timing;
  /** Bumped by every update and delete, so a timer armed for an older definition does nothing. */
  generation: number;
  timer: TimerHandle | null;
  dueAt: number | null;
  /** A one-time schedule that fired and was kept (ActionAfterCompletion NONE). */
  completed: boolean;
}

/** A schedule as the data folder keeps it: everything but its timer. */
export type StoredSchedule = Omit<ScheduleRecord, 'timer' | 'generation'>;

/** What `GET /_local/schedules` shows for one schedule. */
export interface ArmedSchedule {
  name: string;
  group: string;
  expression: string;
  timezone: string;
  state: string;
  /** The handler it invokes, or the queue it sends to. */
  target: string;
  actionAfterCompletion: string;
  /** The next time it fires (ISO, UTC), or null when it will not fire again. */
  dueAt: string | null;
  /** The order and vendor a release schedule sends (read from its Input, the release command); null for others. */
  orderId: string | null;
  vendorId: string | null;
}

/** The order and vendor of a release command carried as a schedule's Input. */
function releaseOf(input: string | undefined): { orderId: string | null; vendorId: string | null } {
  try {
    const command = JSON.parse(input ?? 'null') as { orderId?: unknown; vendorId?: unknown } | null;
    return {
      orderId: typeof command?.orderId === 'string' ? command.orderId : null,
      vendorId: typeof command?.vendorId === 'string' ? command.vendorId : null,
    };
  } catch {
    return { orderId: null, vendorId: null };
  }
}

export interface SchedulerAnswer {
  status: number;
  body: unknown;
}

export interface LocalSchedulerOptions {
  clock: SharedClock;
  targets: Partial<Record<HandlerName, LambdaTarget>>;
  /** The edge's queues, which a schedule may target by ARN. */
  queues?: LocalQueues;
  region: string;
  accountId: string;
  log: (line: string) => void;
  retryDelayMs?: number;
  /** Where schedules are kept across restarts (the data folder's journal); default: memory only. */
  store?: RecordStore<StoredSchedule>;
}

const NAME = /^[0-9a-zA-Z\-_.]{1,64}$/;
const RATE_UNITS: Record<string, number> = { minute: 60_000, hour: 3_600_000, day: 86_400_000 };
/** The local simplification of RetryPolicy: at most this many tries in all. */
export const MAX_INVOCATION_ATTEMPTS = 3;
/** The wait for a target that is not ready yet (starting): doubling from the first to the cap, for as long as it takes. */
const NOT_READY_FIRST_MS = 50;
const NOT_READY_CAP_MS = 1_000;

export class LocalScheduler {
  private readonly schedules = new Map<string, ScheduleRecord>();
  readonly inFlight = new InFlight();
  private readonly store: RecordStore<StoredSchedule>;
  private closed = false;

  constructor(private readonly opts: LocalSchedulerOptions) {
    this.store = opts.store ?? new MemoryRecords();
  }

  /**
   * Arms the schedules kept before a restart (once the targets can run): those whose time passed while the process
   * was down fire at once, in time order; a schedule created since (the sweep) keeps its new definition.
   */
  restore(): number {
    let restored = 0;
    const stored = [...this.store.loaded().values()].sort((a, b) => (a.dueAt ?? Infinity) - (b.dueAt ?? Infinity));
    for (const kept of stored) {
      const id = key(kept.GroupName, kept.Name);
      if (this.schedules.has(id)) continue;
      const record: ScheduleRecord = { ...kept, generation: 0, timer: null, dueAt: null };
      this.schedules.set(id, record);
      restored += 1;
      if (record.completed) continue;
      this.arm(record, record.timing.kind === 'at' ? record.timing.at : kept.dueAt ?? this.firstDue(record));
    }
    return restored;
  }

  /** Resolves once every change made so far is on disk: the edge answers a Scheduler request only then. */
  persisted(): Promise<void> {
    return this.store.flush();
  }

  /** Serves one Scheduler REST request (path without query, parsed query, raw body). */
  handle(method: string, path: string, query: URLSearchParams, body: Record<string, unknown>): SchedulerAnswer {
    if (path === '/schedules' && method === 'GET') return { status: 200, body: this.listSchedules(query) };
    const match = /^\/schedules\/([^/]+)$/.exec(path);
    if (!match) throw new SchedulerError('ResourceNotFoundException', 404, `No Scheduler operation at ${method} ${path}`);
    const name = checkName('Name', safeDecode(match[1]));
    switch (method) {
      case 'POST': return { status: 200, body: this.create(name, body) };
      case 'PUT': return { status: 200, body: this.update(name, body) };
      case 'GET': return { status: 200, body: this.get(name, query.get('groupName')) };
      case 'DELETE': return { status: 200, body: this.delete(name, query.get('groupName')) };
      default: throw new SchedulerError('ResourceNotFoundException', 404, `No Scheduler operation at ${method} ${path}`);
    }
  }

  create(name: string, body: Record<string, unknown>): { ScheduleArn: string } {
    const group = checkName('GroupName', body.GroupName ?? 'default');
    if (this.schedules.has(key(group, name))) {
      throw new SchedulerError('ConflictException', 409, `Schedule ${name} already exists in group ${group}.`);
    }
    const now = this.opts.clock.nowMs();
    const record = { ...this.definition(name, group, body), CreationDate: now, LastModificationDate: now, generation: 0, timer: null, dueAt: null, completed: false };
    this.schedules.set(key(group, name), record);
    this.arm(record, this.firstDue(record));
    this.keep(record);
    return { ScheduleArn: record.Arn };
  }

  update(name: string, body: Record<string, unknown>): { ScheduleArn: string } {
    const group = checkName('GroupName', body.GroupName ?? 'default');
    const existing = this.find(name, group);
    const definition = this.definition(name, group, body);
    this.disarm(existing);
    const record: ScheduleRecord = {
      ...definition,
      CreationDate: existing.CreationDate,
      LastModificationDate: this.opts.clock.nowMs(),
      generation: existing.generation + 1,
      timer: null,
      dueAt: null,
      completed: false,
    };
    this.schedules.set(key(group, name), record);
    this.arm(record, this.firstDue(record));
    this.keep(record);
    return { ScheduleArn: record.Arn };
  }

  get(name: string, groupName: string | null): Record<string, unknown> {
    return describe(this.find(name, checkName('groupName', groupName ?? 'default')));
  }

  delete(name: string, groupName: string | null): Record<string, never> {
    const record = this.find(name, checkName('groupName', groupName ?? 'default'));
    this.remove(record);
    return {};
  }

  /** Every schedule and when it fires next, soonest first (the local view for tests and demos). */
  list(): ArmedSchedule[] {
    return [...this.schedules.values()]
      .sort((a, b) => (a.dueAt ?? Infinity) - (b.dueAt ?? Infinity))
      .map((r) => ({
        name: r.Name,
        group: r.GroupName,
        expression: r.ScheduleExpression,
        timezone: r.ScheduleExpressionTimezone ?? 'UTC',
        state: r.State,
        target: r.destination.kind === 'function' ? r.destination.handler : r.destination.queue,
        actionAfterCompletion: r.ActionAfterCompletion,
        dueAt: r.dueAt === null ? null : DateTime.fromMillis(r.dueAt, { zone: 'utc' }).toISO(),
        ...releaseOf(r.Target.Input),
      }));
  }

  /** Cancels every timer (the edge is closing). */
  close(): void {
    this.closed = true;
    for (const record of this.schedules.values()) this.disarm(record);
  }

  private listSchedules(query: URLSearchParams): { Schedules: unknown[]; NextToken?: string } {
    const group = query.get('ScheduleGroup');
    const prefix = query.get('NamePrefix') ?? '';
    const state = query.get('State');
    const max = query.has('MaxResults') ? Number(query.get('MaxResults')) : 100;
    if (!Number.isInteger(max) || max < 1 || max > 100) throw invalid('MaxResults must be an integer from 1 to 100.');
    if (state !== null && state !== 'ENABLED' && state !== 'DISABLED') throw invalid('State must be ENABLED or DISABLED.');
    const start = query.has('NextToken') ? Number.parseInt(Buffer.from(query.get('NextToken')!, 'base64url').toString(), 10) : 0;
    if (!Number.isInteger(start) || start < 0) throw invalid('NextToken is not one this edge gave out; send the NextToken of the previous answer.');
    const matching = [...this.schedules.values()].filter((r) =>
      (group === null || r.GroupName === group) && r.Name.startsWith(prefix) && (state === null || r.State === state));
    const page = matching.slice(start, start + max).map((r) => ({
      Arn: r.Arn,
      Name: r.Name,
      GroupName: r.GroupName,
      State: r.State,
      CreationDate: r.CreationDate / 1000,
      LastModificationDate: r.LastModificationDate / 1000,
      Target: { Arn: r.Target.Arn },
    }));
    const next = start + max < matching.length ? Buffer.from(String(start + max)).toString('base64url') : undefined;
    return next ? { Schedules: page, NextToken: next } : { Schedules: page };
  }

  private find(name: string, group: string): ScheduleRecord {
    const record = this.schedules.get(key(group, name));
    if (!record) throw new SchedulerError('ResourceNotFoundException', 404, `Schedule ${name} does not exist in group ${group}.`);
    return record;
  }

  /** Validates a Create/Update body as the service does and derives the local handler and timing. */
  private definition(name: string, group: string, body: Record<string, unknown>):
    Omit<ScheduleRecord, 'CreationDate' | 'LastModificationDate' | 'generation' | 'timer' | 'dueAt' | 'completed'> {
    const expression = body.ScheduleExpression;
    if (typeof expression !== 'string' || expression === '') {
      throw invalid('ScheduleExpression is required: send at(yyyy-mm-ddThh:mm:ss) or rate(N minutes|hours|days).');
    }
    const timezone = body.ScheduleExpressionTimezone;
    if (timezone !== undefined && (typeof timezone !== 'string' || !zoneNamed(timezone).isValid)) {
      throw invalid(`ScheduleExpressionTimezone '${String(timezone)}' is not a time zone: send an IANA name such as UTC or Asia/Kolkata.`);
    }
    const timing = parseExpression(expression, (timezone as string | undefined) ?? 'UTC');
    const window = body.FlexibleTimeWindow as Record<string, unknown> | undefined;
    if (!window || (window.Mode !== 'OFF' && window.Mode !== 'FLEXIBLE')) {
      throw invalid('FlexibleTimeWindow.Mode is required: send {"Mode": "OFF"} or {"Mode": "FLEXIBLE", "MaximumWindowInMinutes": 1..1440}.');
    }
    const windowMinutes = window.MaximumWindowInMinutes;
    if (window.Mode === 'FLEXIBLE' && !(Number.isInteger(windowMinutes) && (windowMinutes as number) >= 1 && (windowMinutes as number) <= 1440)) {
      throw invalid('FlexibleTimeWindow.MaximumWindowInMinutes must be 1 to 1440 when Mode is FLEXIBLE.');
    }
    const target = checkTarget(body.Target);
    const destination = this.destinationOf(target);
    const state = body.State ?? 'ENABLED';
    if (state !== 'ENABLED' && state !== 'DISABLED') throw invalid(`State '${String(state)}' is not valid: send ENABLED or DISABLED.`);
    const after = body.ActionAfterCompletion ?? 'NONE';
    if (after !== 'NONE' && after !== 'DELETE') throw invalid(`ActionAfterCompletion '${String(after)}' is not valid: send NONE or DELETE.`);
    if (body.Description !== undefined && (typeof body.Description !== 'string' || body.Description.length > 512)) {
      throw invalid('Description must be text of at most 512 characters.');
    }
    return {
      Name: name,
      GroupName: group,
      Arn: `arn:aws:scheduler:${this.opts.region}:${this.opts.accountId}:schedule/${group}/${name}`,
      ScheduleExpression: expression,
      ScheduleExpressionTimezone: timezone as string | undefined,
      StartDate: checkDate('StartDate', body.StartDate),
      EndDate: checkDate('EndDate', body.EndDate),
      Description: body.Description as string | undefined,
      State: state,
      KmsKeyArn: typeof body.KmsKeyArn === 'string' ? body.KmsKeyArn : undefined,
      Target: target,
      FlexibleTimeWindow: window as ScheduleRecord['FlexibleTimeWindow'],
      ActionAfterCompletion: after,
      destination,
      timing,
    };
  }

  /** The local function or queue a target names; a function's Input must be JSON (its event). */
  private destinationOf(target: ScheduleTarget): Destination {
    if (target.Arn.startsWith('arn:aws:sqs:') && this.opts.queues) {
      try {
        return { kind: 'queue', queue: this.opts.queues.byArn(target.Arn).name };
      } catch (error) {
        if (!(error instanceof SqsError)) throw error;
        throw invalid(`Target.Arn '${target.Arn}' is not a local queue: send the ARN GetQueueAttributes answers as QueueArn.`);
      }
    }
    const handler = handlerForArn(target.Arn);
    if (!handler) {
      const known = (Object.keys(LOCAL_FUNCTION_NAMES) as HandlerName[]).map((h) => localFunctionArn(h, this.opts.region, this.opts.accountId));
      throw invalid(`Target.Arn '${target.Arn}' is not a local function or queue: send one of ${known.join(', ')}, or a queue's ARN.`);
    }
    if (target.Input !== undefined) {
      try {
        JSON.parse(target.Input);
      } catch {
        throw invalid('Target.Input is not valid JSON: a Lambda target needs a JSON payload.');
      }
    }
    return { kind: 'function', handler };
  }

  /** When a new or updated schedule first fires; StartDate and EndDate apply to rate() only, as in the service. */
  private firstDue(record: ScheduleRecord): number | null {
    if (record.timing.kind === 'at') return record.timing.at;
    const now = this.opts.clock.nowMs();
    const due = record.StartDate !== undefined && record.StartDate > now ? record.StartDate : now + record.timing.periodMs;
    return record.EndDate !== undefined && due > record.EndDate ? null : due;
  }

  private arm(record: ScheduleRecord, due: number | null): void {
    if (due === null || record.State !== 'ENABLED') return;
    const generation = record.generation;
    record.dueAt = due;
    record.timer = this.opts.clock.at(due, () => this.fire(record, generation, due));
    // A time already past fires at once (on the clock's next run), as the service does.
    if (due <= this.opts.clock.nowMs()) void this.opts.clock.runDue();
  }

  private disarm(record: ScheduleRecord): void {
    record.timer?.cancel();
    record.timer = null;
    record.dueAt = null;
  }

  private remove(record: ScheduleRecord): void {
    this.disarm(record);
    record.generation += 1;
    this.schedules.delete(key(record.GroupName, record.Name));
    this.store.delete(key(record.GroupName, record.Name));
  }

  private keep(record: ScheduleRecord): void {
    const { timer: _timer, generation: _generation, ...stored } = record;
    this.store.put(key(record.GroupName, record.Name), stored);
  }

  private isCurrent(record: ScheduleRecord, generation: number): boolean {
    return this.schedules.get(key(record.GroupName, record.Name)) === record && record.generation === generation;
  }

  /** Schedule invocations (billed by Scheduler) per schedule group since the start: the bench's bill. */
  readonly invocations = new Map<string, number>();

  /** One due time of one schedule: invoke (with retries), then delete, complete or re-arm. Runs once per timer. */
  private fire(record: ScheduleRecord, generation: number, due: number): Promise<void> {
    return this.inFlight.run(async () => {
      if (!this.isCurrent(record, generation) || record.State !== 'ENABLED') return;
      this.invocations.set(record.GroupName, (this.invocations.get(record.GroupName) ?? 0) + 1);
      record.timer = null;
      record.dueAt = null;
      // Handed back by a close before its target was ready: it stays as stored, and fires at the next start.
      if (!(await this.invoke(record))) return;
      if (!this.isCurrent(record, generation)) return; // the handler updated or deleted its own schedule
      if (record.timing.kind === 'rate') {
        // Coalescing stops at EndDate, so a jump past it still runs the last period inside the window.
        const jumpingTo = this.opts.clock.advancingTo;
        const bound = jumpingTo === null ? null : Math.min(jumpingTo, record.EndDate ?? Infinity);
        const next = nextRateDue(due, record.timing.periodMs, bound);
        this.arm(record, record.EndDate !== undefined && next > record.EndDate ? null : next);
        this.keep(record);
      } else if (record.ActionAfterCompletion === 'DELETE') {
        this.remove(record);
      } else {
        record.completed = true;
        this.keep(record);
      }
      // Not awaited: a schedule that fires again after a kill is invoked again, which targets tolerate (at least once).
      void this.store.flush().catch((error: unknown) => this.opts.log(`scheduler: keeping ${record.Name} failed: ${String(error)}`));
    });
  }

  /**
   * Invokes the target with its retries; false when a close came while the target was not ready (the schedule is then
   * left as stored). A target that is not ready (starting) is waited for and never counts as a try.
   */
  private async invoke(record: ScheduleRecord): Promise<boolean> {
    const label = `${record.GroupName}/${record.Name}`;
    const { destination } = record;
    if (destination.kind === 'queue') {
      this.sendToQueue(label, destination.queue, record.Target.Input);
      return true;
    }
    const target = this.opts.targets[destination.handler];
    if (!target) {
      this.opts.log(`scheduler: ${label} fired but no local target '${destination.handler}' is configured`);
      return true;
    }
    const retries = record.Target.RetryPolicy?.MaximumRetryAttempts ?? MAX_INVOCATION_ATTEMPTS - 1;
    const attempts = 1 + Math.min(Math.max(retries, 0), MAX_INVOCATION_ATTEMPTS - 1);
    let notReadyWaits = 0;
    for (let attempt = 1; attempt <= attempts;) {
      if (this.closed) return false;
      try {
        // A Lambda target gets the Input itself, no envelope; parsed afresh so a retry sees the original.
        await target(JSON.parse(record.Target.Input ?? '{}'));
        return true;
      } catch (error) {
        if (isTargetNotReady(error)) {
          notReadyWaits += 1;
          await pause(backoffMs(notReadyWaits, NOT_READY_FIRST_MS, NOT_READY_CAP_MS));
          continue;
        }
        const message = error instanceof Error ? error.message : String(error);
        if (attempt === attempts) {
          this.opts.log(`scheduler: ${label} to ${destination.handler} failed ${attempts} times: ${message}`);
          return true;
        }
        await pause((this.opts.retryDelayMs ?? 25) * attempt);
        attempt += 1;
      }
    }
    return true;
  }

  /** An SQS target: the Input is the message body, sent as Scheduler does (SendMessage with the role's rights). */
  private sendToQueue(label: string, queue: string, input: string | undefined): void {
    const queues = this.opts.queues!;
    try {
      queues.send(queues.byName(queue), input ?? '', undefined);
    } catch (error) {
      // Scheduler's retries cannot mend a refused body or a deleted queue; the service would dead-letter it.
      this.opts.log(`scheduler: ${label} could not send to queue ${queue}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
}

function key(group: string, name: string): string {
  return `${group}\u0000${name}`;
}

function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

function checkName(field: string, value: unknown): string {
  if (typeof value !== 'string' || !NAME.test(value)) {
    throw invalid(`${field} '${String(value)}' is not valid: send 1 to 64 characters of [0-9a-zA-Z-_.].`);
  }
  return value;
}

function checkTarget(value: unknown): ScheduleTarget {
  if (value === null || typeof value !== 'object') throw invalid('Target is required: send {Arn, RoleArn, Input}.');
  const target = value as Record<string, unknown>;
  if (typeof target.Arn !== 'string' || target.Arn === '') throw invalid('Target.Arn is required: send the Lambda function ARN.');
  if (typeof target.RoleArn !== 'string' || target.RoleArn === '') {
    throw invalid('Target.RoleArn is required: send the ARN of the role Scheduler assumes to invoke the target.');
  }
  if (target.Input !== undefined && typeof target.Input !== 'string') throw invalid('Target.Input must be a string.');
  const retry = target.RetryPolicy as Record<string, unknown> | undefined;
  if (retry !== undefined) {
    const attempts = retry.MaximumRetryAttempts;
    if (attempts !== undefined && !(Number.isInteger(attempts) && (attempts as number) >= 0 && (attempts as number) <= 185)) {
      throw invalid('Target.RetryPolicy.MaximumRetryAttempts must be an integer from 0 to 185.');
    }
    const age = retry.MaximumEventAgeInSeconds;
    if (age !== undefined && !(Number.isInteger(age) && (age as number) >= 60 && (age as number) <= 86400)) {
      throw invalid('Target.RetryPolicy.MaximumEventAgeInSeconds must be an integer from 60 to 86400.');
    }
  }
  return target as unknown as ScheduleTarget;
}

/** The SDK sends timestamps as epoch seconds; ISO text is accepted too. Stored as epoch milliseconds. */
function checkDate(field: string, value: unknown): number | undefined {
  if (value === undefined || value === null) return undefined;
  const at = typeof value === 'number' ? DateTime.fromMillis(value * 1000) : typeof value === 'string' ? DateTime.fromISO(value) : null;
  if (!at || !at.isValid) throw invalid(`${field} must be a timestamp (epoch seconds or ISO 8601 with an offset).`);
  return at.toMillis();
}

/**
 * The next due time of a rate() schedule. While the clock jumps far ahead, the periods it skips over are coalesced
 * into one run at the last period before the jump ends (like a cron that slept): a P3D jump runs the one-minute sweep
 * twice, not 4,320 times. One-time at() schedules are never coalesced; each fires at its own time.
 */
export function nextRateDue(due: number, periodMs: number, advancingTo: number | null): number {
  const next = due + periodMs;
  if (advancingTo === null || next + periodMs > advancingTo) return next;
  return due + Math.floor((advancingTo - due) / periodMs) * periodMs;
}

/**
 * The zone of an IANA name, made once per name. Luxon checks a zone given by its name on every use by formatting a
 * date in it (IANAZone.isValidZone, a new Intl.DateTimeFormat each time): a seventh of the edge's CPU at a few hundred
 * CreateSchedule calls a second, measured with --cpu-prof. IANAZone.create keeps one zone per name, checked once.
 */
function zoneNamed(name: string): IANAZone {
  return IANAZone.create(name);
}

/**
 * The instants of at() expressions read, by zone and expression. Scheduler's precision is a minute, so the releases
 * due in one minute share one expression, and reading its wall time in a named zone costs luxon two offsets from Intl:
 * at a few hundred CreateSchedule calls a second, a sixth of the edge's CPU in the ingest profile. Bounded.
 */
const atInstants = new Map<string, number>();
const MAX_AT_INSTANTS = 10_000;

/** at(yyyy-mm-ddThh:mm:ss) in the schedule's zone, or rate(N unit) with the singular unit only for 1, as the service requires. */
export function parseExpression(expression: string, timezone: string): Timing {
  const at = /^at\((\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})\)$/.exec(expression);
  if (at) {
    const key = `${timezone} ${at[1]}`;
    let ms = atInstants.get(key);
    if (ms === undefined) {
      const when = DateTime.fromISO(at[1], { zone: zoneNamed(timezone) });
      if (!when.isValid) throw invalid(`ScheduleExpression '${expression}' is not a real date and time: send at(yyyy-mm-ddThh:mm:ss).`);
      ms = when.toMillis();
      if (atInstants.size >= MAX_AT_INSTANTS) atInstants.clear();
      atInstants.set(key, ms);
    }
    return { kind: 'at', at: ms };
  }
  const rate = /^rate\((\d+) (minute|minutes|hour|hours|day|days)\)$/.exec(expression);
  if (rate) {
    const value = Number(rate[1]);
    const plural = rate[2].endsWith('s');
    if (value < 1 || (value === 1) === plural) {
      throw invalid(`ScheduleExpression '${expression}' is not valid: the value must be a positive integer, with a singular unit for 1 (rate(1 minute)) and plural otherwise (rate(5 minutes)).`);
    }
    return { kind: 'rate', periodMs: value * RATE_UNITS[plural ? rate[2].slice(0, -1) : rate[2]] };
  }
  if (expression.startsWith('cron(')) {
    throw invalid(`ScheduleExpression '${expression}': the local edge does not run cron() schedules; send at(...) or rate(...).`);
  }
  throw invalid(`ScheduleExpression '${expression}' is not valid: send at(yyyy-mm-ddThh:mm:ss) or rate(N minutes|hours|days).`);
}

function describe(record: ScheduleRecord): Record<string, unknown> {
  return {
    Arn: record.Arn,
    GroupName: record.GroupName,
    Name: record.Name,
    ScheduleExpression: record.ScheduleExpression,
    ScheduleExpressionTimezone: record.ScheduleExpressionTimezone,
    StartDate: record.StartDate === undefined ? undefined : record.StartDate / 1000,
    EndDate: record.EndDate === undefined ? undefined : record.EndDate / 1000,
    Description: record.Description,
    State: record.State,
    CreationDate: record.CreationDate / 1000,
    LastModificationDate: record.LastModificationDate / 1000,
    KmsKeyArn: record.KmsKeyArn,
    Target: record.Target,
    FlexibleTimeWindow: record.FlexibleTimeWindow,
    ActionAfterCompletion: record.ActionAfterCompletion,
  };
}
