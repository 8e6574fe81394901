/** The local EventBridge bus: PutEvents with the real service's validation, then asynchronous delivery by the shared rules. */
import { randomUUID } from 'node:crypto';
import { DateTime } from 'luxon';
import { MAX_NESTING_DEPTH, nestingDepth, pruneNesting } from '../../functions/domain/errors';
import { eventRules, patternMatches, type EventRule, type HandlerName } from '../../functions/definitions/routing';
import type { SharedClock } from '../clock';
import { InFlight, Waiting, backoffMs, isTargetNotReady, pause } from './in-flight';
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

/** An event a target never took, after every try: listed (GET /rejected-events) instead of dropped. */
export interface UndeliverableEvent extends DeliveryFailure {
  envelope: EventEnvelope;
  /** Epoch ms (real time) when PutEvents accepted it, and how long its delivery was tried. */
  acceptedAt: number;
  triedForMs: number;
}

/** What the journal keeps of an accepted event until every target has taken it (or it was listed as undeliverable). */
export interface KeptEvent {
  envelope: EventEnvelope;
  /** Epoch ms (real time) of the acceptance: the age EventBridge's retry policy counts from, across restarts. */
  acceptedAt: number;
}

/**
 * How a target that fails is tried again, as EventBridge's default retry policy (185 tries, 24 hours, exponential
 * backoff): a few quick tries first (which `idle()` waits for), then tries spaced out up to `maxBackoffMs`, outside
 * `idle()`. A target that is not ready (starting, closing) is waited for and never counts as a try.
 */
export interface DeliveryPolicy {
  /** Tries in a row, `retryDelayMs` x the try's number apart, before the event waits longer. */
  quickAttempts: number;
  retryDelayMs: number;
  /** The wait before the first later try; it doubles up to `maxBackoffMs`. */
  backoffMs: number;
  maxBackoffMs: number;
  /** Tries in all, and the oldest an event may be (since its acceptance): past either, it is listed as undeliverable. */
  maximumAttempts: number;
  maximumAgeMs: number;
  /** The wait for a target that is not ready: `notReadyMs` doubling up to `maxNotReadyMs`, for as long as it takes. */
  notReadyMs: number;
  maxNotReadyMs: number;
}

export const DEFAULT_DELIVERY_POLICY: DeliveryPolicy = {
  quickAttempts: 3,
  retryDelayMs: 25,
  backoffMs: 1_000,
  maxBackoffMs: 5 * 60_000,
  maximumAttempts: 185,
  maximumAgeMs: 24 * 3_600_000,
  notReadyMs: 50,
  maxNotReadyMs: 1_000,
};

export interface LocalBusOptions {
  clock: SharedClock;
  targets: Partial<Record<HandlerName, LambdaTarget>>;
  eventSource?: string;
  region: string;
  accountId: string;
  /** Names that mean this bus besides `default` (HOLDBACK_EVENT_BUS). */
  busNames?: string[];
  log: (line: string) => void;
  /** How a failing or not-ready target is tried again (default: DEFAULT_DELIVERY_POLICY). */
  delivery?: Partial<DeliveryPolicy>;
  /** How many deliveries run at once, like a Lambda function's reserved concurrency. */
  concurrency?: number;
  /** Where accepted events wait until every target has had them (the data folder's journal); default: memory only. */
  store?: RecordStore<KeptEvent | EventEnvelope>;
  /**
   * Lists an event no target took after every try (the runtime writes it to the rejected events); until it resolves
   * the event stays in the journal, and a listing that fails is tried again.
   */
  onUndeliverable?: (event: UndeliverableEvent) => Promise<void>;
}

/** PutEvents' limits (service quotas that are not adjustable). */
export const MAX_ENTRIES = 10;
export const MAX_REQUEST_BYTES = 256 * 1024;
const KEPT_EVENTS = 10_000;
const KEPT_FAILURES = 1_000;

type EntryCheck = { envelope: EventEnvelope } | { ErrorCode: string; ErrorMessage: string };

/** One accepted event on its way to its targets: kept in the journal until `left` reaches 0. */
interface Job {
  kept: KeptEvent;
  left: number;
}

/** One event's delivery to one rule's target. */
interface Delivery {
  job: Job;
  rule: EventRule;
  target: LambdaTarget;
  /** Tries that failed (a target that was not ready does not count). */
  attempts: number;
  notReadyWaits: number;
  lastError: string;
}

export class LocalBus {
  /** Every accepted event, oldest first (the last 10,000). */
  readonly events: EventEnvelope[] = [];
  /** Deliveries that failed every attempt (the last 1,000). */
  readonly failures: DeliveryFailure[] = [];
  readonly inFlight: InFlight;
  private readonly rules: EventRule[];
  private readonly busNames: Set<string>;
  private readonly store: RecordStore<KeptEvent | EventEnvelope>;
  private readonly policy: DeliveryPolicy;
  /** Deliveries waiting for their next try, or for their target to be ready. */
  private readonly waiting = new Waiting();

  constructor(private readonly opts: LocalBusOptions) {
    this.store = opts.store ?? new MemoryRecords();
    this.policy = { ...DEFAULT_DELIVERY_POLICY, ...opts.delivery };
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
    for (const envelope of accepted) this.accept({ envelope, acceptedAt: Date.now() });
    return { FailedEntryCount: entries.length - accepted.length, Entries: results };
  }

  /** Resolves once every event accepted so far is on disk: the edge answers PutEvents only then. */
  persisted(): Promise<void> {
    return this.store.flush();
  }

  /**
   * The targets can run now: deliveries waiting for them go at once, and the events accepted before a restart whose
   * delivery had not finished are delivered again (at least once).
   */
  restore(): number {
    this.waiting.wake();
    const pending = [...this.store.loaded().values()];
    // A journal written before events carried their acceptance time holds bare envelopes.
    for (const kept of pending) this.accept('envelope' in kept ? kept : { envelope: kept, acceptedAt: Date.now() });
    return pending.length;
  }

  /** How many deliveries wait for a later try or for their target (not in `inFlight`: `idle()` does not wait for them). */
  get waitingDeliveries(): number {
    return this.waiting.size;
  }

  /** Stops every wait; what was not delivered stays in the journal for the next start. */
  close(): void {
    this.waiting.close();
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

  private accept(kept: KeptEvent): void {
    const { envelope } = kept;
    this.events.push(envelope);
    if (this.events.length > KEPT_EVENTS) this.events.splice(0, this.events.length - KEPT_EVENTS);
    const routes: Array<{ rule: EventRule; target: LambdaTarget }> = [];
    for (const rule of this.rules) {
      const target = this.opts.targets[rule.target];
      if (target && patternMatches(rule.pattern, envelope)) routes.push({ rule, target });
    }
    if (routes.length === 0) return;
    // Kept until every target took it (or it was listed as undeliverable); a restart before that delivers it again.
    this.store.put(envelope.id, kept);
    const job: Job = { kept, left: routes.length };
    for (const { rule, target } of routes) {
      const delivery: Delivery = { job, rule, target, attempts: 0, notReadyWaits: 0, lastError: '' };
      this.start(() => this.deliver(delivery));
    }
  }

  /** Runs one step of a delivery (a try, or its listing) in `inFlight`, within the bus's concurrency. */
  private start(step: () => Promise<void>): void {
    void this.inFlight.run(step);
  }

  /** Tries the target: the quick tries in a row, then a wait outside `inFlight` for the next one. */
  private async deliver(delivery: Delivery): Promise<void> {
    const { policy } = this;
    const { envelope, acceptedAt } = delivery.job.kept;
    for (;;) {
      if (this.waiting.isClosed) return;
      try {
        // A copy per attempt: a handler that mutates its event must not change what is kept or retried.
        await delivery.target(structuredClone(envelope));
        delivery.notReadyWaits = 0;
        return this.finished(delivery);
      } catch (error) {
        if (isTargetNotReady(error)) {
          // Starting or closing: not the target's failure. It waits (a restart finds it in the journal).
          delivery.notReadyWaits += 1;
          this.waiting.after(backoffMs(delivery.notReadyWaits, policy.notReadyMs, policy.maxNotReadyMs), () => this.start(() => this.deliver(delivery)), true);
          return;
        }
        delivery.notReadyWaits = 0;
        delivery.attempts += 1;
        delivery.lastError = error instanceof Error ? error.message : String(error);
      }
      if (delivery.attempts >= policy.maximumAttempts || Date.now() - acceptedAt >= policy.maximumAgeMs) return this.undeliverable(delivery);
      if (delivery.attempts < policy.quickAttempts) {
        await pause(policy.retryDelayMs * delivery.attempts);
        continue;
      }
      const wait = backoffMs(delivery.attempts - policy.quickAttempts + 1, policy.backoffMs, policy.maxBackoffMs);
      if (delivery.attempts === policy.quickAttempts) {
        this.opts.log(`bus: event ${envelope.id} (${envelope.source} ${envelope['detail-type']}) to ${delivery.rule.target} failed ${delivery.attempts} times (${delivery.lastError}); kept and tried again with backoff for up to ${describeMs(policy.maximumAgeMs)} or ${policy.maximumAttempts} tries`);
      }
      this.waiting.after(wait, () => this.start(() => this.deliver(delivery)), false);
      return;
    }
  }

  /** Every try failed: listed with its reason (GET /rejected-events) before it leaves the journal, never dropped. */
  private async undeliverable(delivery: Delivery): Promise<void> {
    const { envelope, acceptedAt } = delivery.job.kept;
    const failure: DeliveryFailure = { eventId: envelope.id, target: delivery.rule.target, attempts: delivery.attempts, message: delivery.lastError };
    if (!this.failures.some((f) => f.eventId === failure.eventId && f.target === failure.target)) {
      this.failures.push(failure);
      if (this.failures.length > KEPT_FAILURES) this.failures.shift();
      this.opts.log(`bus: event ${envelope.id} (${envelope.source} ${envelope['detail-type']}) to ${delivery.rule.target} failed ${delivery.attempts} times: ${delivery.lastError}`);
    }
    try {
      await this.opts.onUndeliverable?.({ ...failure, envelope, acceptedAt, triedForMs: Date.now() - acceptedAt });
    } catch (error) {
      // Not listed yet: it stays in the journal, and the listing is tried again.
      this.opts.log(`bus: listing undeliverable event ${envelope.id} failed (${error instanceof Error ? error.message : String(error)}); kept and tried again`);
      this.waiting.after(backoffMs(1, this.policy.backoffMs, this.policy.maxBackoffMs), () => this.start(() => this.undeliverable(delivery)), false);
      return;
    }
    this.finished(delivery);
  }

  private finished(delivery: Delivery): void {
    delivery.job.left -= 1;
    if (delivery.job.left === 0) this.store.delete(delivery.job.kept.envelope.id);
  }
}

/** "24 h", "5 min", "90 s": a duration as a log line shows it. */
function describeMs(ms: number): string {
  if (ms >= 3_600_000 && ms % 3_600_000 === 0) return `${ms / 3_600_000} h`;
  if (ms >= 60_000 && ms % 60_000 === 0) return `${ms / 60_000} min`;
  return `${Math.round(ms / 1000)} s`;
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
