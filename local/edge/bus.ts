/** The local EventBridge bus: PutEvents with the real service's validation, then asynchronous delivery by the shared rules. */
import { randomUUID } from 'node:crypto';
import { DateTime } from 'luxon';
import { MAX_NESTING_DEPTH, nestingDepth, pruneNesting } from '../../kit/nesting-depth';
import { eventRules, patternMatches, type EventRule, type HandlerName } from '../../functions/definitions/routing';
import type { SharedClock } from '../clock';
import { InFlight, pause } from './in-flight';
import { MemoryRecords, type RecordStore } from '../../kit/durable-file';

/** What a rule's target receives, as EventBridge builds it. */
export interface EventEnvelope {
  version: '0';
  id: string;
  'detail-type': string;
  source: string;
  account: string;
  time: string;
  region: string;
  resources: string[];
  detail: Record<string, unknown>;
}

/** Invokes a function; `environment` pins the execution environment (an SQS mapping's concurrency slot). */
export type LambdaTarget = (event: unknown, environment?: number) => Promise<unknown>;

export type PutEventsResultEntry = { EventId: string } | { ErrorCode: string; ErrorMessage: string };

/** A whole-call failure: HTTP 400 with `{__type, message}`. */
export class BusValidationError extends Error {
  constructor(message: string, readonly type = 'ValidationException') {
    super(message);
  }
}

export interface DeliveryFailure {
  eventId: string;
  target: HandlerName;
  attempts: number;
  message: string;
}

export interface LocalBusOptions {
  clock: SharedClock;
  targets: Partial<Record<HandlerName, LambdaTarget>>;
  eventSource?: string;
  region: string;
  accountId: string;
  /** Names that mean this bus besides `default` (HOLDBACK_EVENT_BUS). */
  busNames?: string[];
  log: (line: string) => void;
  /** Pause before each retry of a target that threw. */
  retryDelayMs?: number;
  /** How many deliveries run at once, like a Lambda function's reserved concurrency. */
  concurrency?: number;
  /** Where accepted events wait until every target has had them (the data folder's journal); default: memory only. */
  store?: RecordStore<EventEnvelope>;
}

/** PutEvents' limits (service quotas that are not adjustable). */
export const MAX_ENTRIES = 10;
export const MAX_REQUEST_BYTES = 256 * 1024;
/** EventBridge delivers at least once: a target that throws gets this many tries in all. */
export const DELIVERY_ATTEMPTS = 3;
const KEPT_EVENTS = 10_000;
const KEPT_FAILURES = 1_000;

type EntryCheck = { envelope: EventEnvelope } | { ErrorCode: string; ErrorMessage: string };

export class LocalBus {
  /** Every accepted event, oldest first (the last 10,000). */
  readonly events: EventEnvelope[] = [];
  /** Deliveries that failed every attempt (the last 1,000). */
  readonly failures: DeliveryFailure[] = [];
  readonly inFlight: InFlight;
  private readonly rules: EventRule[];
  private readonly busNames: Set<string>;
  private readonly store: RecordStore<EventEnvelope>;

  constructor(private readonly opts: LocalBusOptions) {
    this.store = opts.store ?? new MemoryRecords();
    this.rules = eventRules(opts.eventSource);
    this.busNames = new Set(['default', ...(opts.busNames ?? [])].filter((name) => name !== ''));
    this.inFlight = new InFlight(opts.concurrency ?? 16);
    for (const rule of this.rules) {
      if (!opts.targets[rule.target]) {
        opts.log(`bus: rule ${rule.name} has no local target '${rule.target}'; its events are only kept in /_local/events`);
      }
    }
  }

  /** Validates and accepts the entries of one PutEvents call; delivery starts after the caller has its answer. */
  putEvents(body: Record<string, unknown>): { FailedEntryCount: number; Entries: PutEventsResultEntry[] } {
    const entries = body.Entries;
    if (!Array.isArray(entries) || entries.length < 1 || entries.length > MAX_ENTRIES) {
      throw new BusValidationError(
        `1 validation error detected: Value at 'entries' failed to satisfy constraint: Member must have length between 1 and ${MAX_ENTRIES} (got ${Array.isArray(entries) ? entries.length : 'no Entries list'})`,
      );
    }
    const size = entries.reduce((sum: number, entry) => sum + entrySize(entry), 0);
    if (size > MAX_REQUEST_BYTES) {
      throw new BusValidationError(`Total size of the entries in the request is over the limit (${size} bytes; at most ${MAX_REQUEST_BYTES})`);
    }
    const results: PutEventsResultEntry[] = [];
    const accepted: EventEnvelope[] = [];
    for (const entry of entries) {
      const check = this.check(entry);
      if ('envelope' in check) {
        accepted.push(check.envelope);
        results.push({ EventId: check.envelope.id });
      } else {
        results.push(check);
      }
    }
    for (const envelope of accepted) this.accept(envelope);
    return { FailedEntryCount: entries.length - accepted.length, Entries: results };
  }

  /** Resolves once every event accepted so far is on disk: the edge answers PutEvents only then. */
  persisted(): Promise<void> {
    return this.store.flush();
  }

  /** Delivers again the events accepted before a restart whose delivery had not finished (at least once). */
  restore(): number {
    const pending = [...this.store.loaded().values()];
    for (const envelope of pending) this.accept(envelope);
    return pending.length;
  }

  /** Accepted events with the given source and detail-type (either may be omitted). */
  find(filter: { source?: string; detailType?: string }): EventEnvelope[] {
    return this.events.filter((event) =>
      (!filter.source || event.source === filter.source) && (!filter.detailType || event['detail-type'] === filter.detailType));
  }

  private check(entry: unknown): EntryCheck {
    if (entry === null || typeof entry !== 'object' || Array.isArray(entry)) {
      return invalid('Entry', 'each entry must be an object');
    }
    const e = entry as Record<string, unknown>;
    for (const field of ['Source', 'DetailType', 'Detail'] as const) {
      if (e[field] === undefined || e[field] === null || e[field] === '') return invalid(field, `${field} is a required argument.`);
      if (typeof e[field] !== 'string') return invalid(field, `${field} must be a string.`);
    }
    const source = e.Source as string;
    if (source.startsWith('aws.')) {
      return { ErrorCode: 'NotAuthorizedForSourceException', ErrorMessage: `Not authorized for the source ${source}.` };
    }
    let detail: unknown;
    try {
      detail = JSON.parse(e.Detail as string);
    } catch {
      detail = undefined;
    }
    if (detail === null || typeof detail !== 'object' || Array.isArray(detail)) {
      return { ErrorCode: 'MalformedDetail', ErrorMessage: 'Detail is malformed.' };
    }
    // EventBridge accepts any JSON (within 256 KB, e.g. 40,000 nested lists) and the target refuses what it cannot
    // read. Every step here (keeping it, cloning it per delivery, posting it to a container) recurses, so a detail
    // deeper than any target reads is cut to one level past the limit: still too deep, so the target refuses it and
    // lists it as rejected, for the same reason as on AWS.
    if (nestingDepth(detail) > MAX_NESTING_DEPTH) detail = pruneNesting(detail);
    if (e.EventBusName !== undefined && !this.isLocalBus(e.EventBusName)) {
      return { ErrorCode: 'ResourceNotFoundException', ErrorMessage: `Event bus ${String(e.EventBusName)} does not exist.` };
    }
    const time = entryTime(e.Time, this.opts.clock);
    if (!time) return invalid('Time', 'Time must be a timestamp (epoch seconds or ISO 8601 with an offset).');
    const resources = e.Resources ?? [];
    if (!Array.isArray(resources) || resources.some((r) => typeof r !== 'string')) {
      return invalid('Resources', 'Resources must be a list of ARNs.');
    }
    return {
      envelope: {
        version: '0',
        id: randomUUID(),
        'detail-type': e.DetailType as string,
        source,
        account: this.opts.accountId,
        time,
        region: this.opts.region,
        resources: resources as string[],
        detail: detail as Record<string, unknown>,
      },
    };
  }

  private isLocalBus(name: unknown): boolean {
    if (typeof name !== 'string') return false;
    const fromArn = /^arn:aws[a-z-]*:events:[^:]*:[^:]*:event-bus\/(.+)$/.exec(name);
    return this.busNames.has(fromArn ? fromArn[1] : name);
  }

  private accept(envelope: EventEnvelope): void {
    this.events.push(envelope);
    if (this.events.length > KEPT_EVENTS) this.events.splice(0, this.events.length - KEPT_EVENTS);
    const deliveries: Array<Promise<void>> = [];
    for (const rule of this.rules) {
      const target = this.opts.targets[rule.target];
      if (target && patternMatches(rule.pattern, envelope)) {
        deliveries.push(this.inFlight.run(() => this.deliver(rule, target, envelope)));
      }
    }
    if (deliveries.length === 0) return;
    // Kept until every target had it (or gave up after its tries); a restart before that delivers it again.
    this.store.put(envelope.id, envelope);
    void Promise.all(deliveries).then(() => this.store.delete(envelope.id));
  }

  private async deliver(rule: EventRule, target: LambdaTarget, envelope: EventEnvelope): Promise<void> {
    let lastError: unknown;
    for (let attempt = 1; attempt <= DELIVERY_ATTEMPTS; attempt += 1) {
      try {
        // A copy per attempt: a handler that mutates its event must not change what is kept or retried.
        await target(structuredClone(envelope));
        return;
      } catch (error) {
        lastError = error;
        if (attempt < DELIVERY_ATTEMPTS) await pause((this.opts.retryDelayMs ?? 25) * attempt);
      }
    }
    const message = lastError instanceof Error ? lastError.message : String(lastError);
    this.failures.push({ eventId: envelope.id, target: rule.target, attempts: DELIVERY_ATTEMPTS, message });
    if (this.failures.length > KEPT_FAILURES) this.failures.shift();
    this.opts.log(
      `bus: event ${envelope.id} (${envelope.source} ${envelope['detail-type']}) to ${rule.target} failed ${DELIVERY_ATTEMPTS} times: ${message}`,
    );
  }
}

function invalid(field: string, reason: string): { ErrorCode: string; ErrorMessage: string } {
  return { ErrorCode: 'InvalidArgument', ErrorMessage: `Parameter ${field} is not valid. Reason: ${reason}` };
}

/** EventBridge's own entry-size rule: Time counts 14 bytes; Source, DetailType, Detail and Resources their UTF-8 bytes. */
function entrySize(entry: unknown): number {
  if (entry === null || typeof entry !== 'object') return 0;
  const e = entry as Record<string, unknown>;
  const bytes = (value: unknown) => (typeof value === 'string' ? Buffer.byteLength(value) : 0);
  const resources = Array.isArray(e.Resources) ? e.Resources.reduce((sum: number, r) => sum + bytes(r), 0) : 0;
  return (e.Time !== undefined ? 14 : 0) + bytes(e.Source) + bytes(e.DetailType) + bytes(e.Detail) + resources;
}

/** The envelope's `time`: the entry's Time (the SDK sends epoch seconds) or the shared clock's now, UTC to the second. */
function entryTime(time: unknown, clock: SharedClock): string | null {
  let at: DateTime;
  if (time === undefined || time === null) at = clock.now();
  else if (typeof time === 'number') at = DateTime.fromMillis(time * 1000, { zone: 'utc' });
  else if (typeof time === 'string') at = DateTime.fromISO(time, { setZone: true }).toUTC();
  else return null;
  if (!at.isValid) return null;
  return at.startOf('second').toISO({ suppressMilliseconds: true });
}
