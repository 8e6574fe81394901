/** Puts Holdback's events, and marketplace order events received by webhook, on the EventBridge bus. */
import type { Instant } from '../../domain/instant';
import type { PutEventsCommandOutput, PutEventsRequestEntry } from '@aws-sdk/client-eventbridge';
import type { HoldbackEvent } from '../../domain/types';
import type { EventPublisher } from '../../application/ports';
import { DEFAULT_EVENT_SOURCE, HOLDBACK_EVENT_SOURCE } from '../../definitions/routing';

export interface EventBridgePublisherOptions {
  /** The bus (HOLDBACK_EVENT_BUS); "default" locally. */
  eventBusName: string;
  /** The marketplace's order-event source (HOLDBACK_EVENT_SOURCE), for events published on its behalf. */
  orderEventSource?: string;
  /** Stamps the events' `Time` (the shared clock locally); EventBridge's own time when absent. */
  now?: () => Instant;
  /**
   * How long the first queued entry waits for others to share its PutEvents (default 0: the rest of this turn). A
   * Lambda container has one invocation at a time and gains nothing by waiting; a publisher shared by many concurrent
   * senders (the embedded default's) fills its calls by waiting a few milliseconds.
   */
  lingerMs?: number;
}

/** One PutEvents: without the SDK's client in the functions (eventbridge-requests.ts), or the SDK client's. */
export type PutEvents = (input: { Entries: PutEventsRequestEntry[] }) => Promise<Pick<PutEventsCommandOutput, 'FailedEntryCount' | 'Entries'>>;

/** PutEvents takes at most 10 entries, and 256 KB of them, per call. */
const BATCH_SIZE = 10;
const BATCH_BYTES = 256 * 1024;

/** One caller's publish: it settles when each of its entries is accepted or has failed twice. */
interface Publication {
  total: number;
  unsettled: number;
  failures: string[];
  resolve: () => void;
  reject: (error: Error) => void;
}

interface QueuedEntry {
  entry: PutEventsRequestEntry;
  publication: Publication;
  /** Entries can fail alone: a failed one is sent once more, then reported with its error code. */
  retried: boolean;
}

export class EventBridgePublisher implements EventPublisher {
  private readonly orderEventSource: string;
  private readonly queue: QueuedEntry[] = [];
  private sending = false;

  constructor(private readonly putEvents: PutEvents, private readonly options: EventBridgePublisherOptions) {
    this.orderEventSource = options.orderEventSource ?? DEFAULT_EVENT_SOURCE;
  }

  async publish(events: HoldbackEvent[]): Promise<void> {
    await this.put(events.map((event) => this.entry(HOLDBACK_EVENT_SOURCE, event.type, event.detail)));
  }

  /** An order event on behalf of the marketplace (e.g. from the gateway's webhook), routed like any order event. */
  async publishOrderEvent(detailType: string, detail: object): Promise<void> {
    await this.put([this.entry(this.orderEventSource, detailType, detail)]);
  }

  private entry(source: string, detailType: string, detail: unknown): PutEventsRequestEntry {
    return {
      Source: source,
      DetailType: detailType,
      Detail: JSON.stringify(detail),
      EventBusName: this.options.eventBusName,
      ...(this.options.now ? { Time: new Date(this.options.now().ms) } : {}),
    };
  }

  /**
   * Queues the entries and resolves once all are accepted. One PutEvents is in flight at a time, and entries queued
   * meanwhile (by concurrent publishes: the vendors of one order, or a container's concurrent invocations) share the
   * next call, so that a burst of releases costs a few PutEvents instead of one each.
   */
  private put(entries: PutEventsRequestEntry[]): Promise<void> {
    if (entries.length === 0) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const publication: Publication = { total: entries.length, unsettled: entries.length, failures: [], resolve, reject };
      for (const entry of entries) this.queue.push({ entry, publication, retried: false });
      if (!this.sending) {
        this.sending = true;
        // The rest of this turn's publishes (and, with a linger, of the next few milliseconds) join the first call.
        const lingerMs = this.options.lingerMs ?? 0;
        if (lingerMs > 0) setTimeout(() => void this.send(), lingerMs);
        else setImmediate(() => void this.send());
      }
    });
  }

  private async send(): Promise<void> {
    while (this.queue.length > 0) {
      const batch = this.nextBatch();
      try {
        const answer = await this.putEvents({ Entries: batch.map((q) => q.entry) });
        const retries: QueuedEntry[] = [];
        batch.forEach((queued, i) => {
          const result = answer.FailedEntryCount ? answer.Entries?.[i] : undefined;
          const failed = answer.FailedEntryCount ? !result || Boolean(result.ErrorCode) : false;
          if (!failed) return settle(queued.publication);
          if (!queued.retried) return void retries.push({ ...queued, retried: true });
          const reason = `${queued.entry.DetailType}: ${result?.ErrorCode ?? 'NoResult'}${result?.ErrorMessage ? ` (${result.ErrorMessage})` : ''}`;
          settle(queued.publication, reason);
        });
        this.queue.unshift(...retries);
      } catch (error) {
        // The whole call failed: every publish with an entry in it fails, as a single call would have.
        const failedPublications = new Set(batch.map((q) => q.publication));
        for (const publication of failedPublications) {
          publication.unsettled = -1;
          publication.reject(error instanceof Error ? error : new Error(String(error)));
        }
        for (let i = this.queue.length - 1; i >= 0; i -= 1) if (failedPublications.has(this.queue[i].publication)) this.queue.splice(i, 1);
      }
      const lingerMs = this.options.lingerMs ?? 0;
      if (lingerMs > 0 && this.queue.length > 0 && this.queue.length < BATCH_SIZE) await new Promise((resolve) => setTimeout(resolve, lingerMs));
    }
    this.sending = false;
  }

  /** The oldest queued entries that fit one PutEvents. */
  private nextBatch(): QueuedEntry[] {
    let bytes = 0;
    let count = 0;
    while (count < this.queue.length && count < BATCH_SIZE) {
      bytes += entryBytes(this.queue[count].entry);
      if (count > 0 && bytes > BATCH_BYTES) break;
      count += 1;
    }
    return this.queue.splice(0, count);
  }
}

/** Settles one entry of a publication; the publication settles with its last entry. */
function settle(publication: Publication, failure?: string): void {
  if (publication.unsettled < 0) return;
  if (failure) publication.failures.push(failure);
  publication.unsettled -= 1;
  if (publication.unsettled > 0) return;
  if (publication.failures.length === 0) return publication.resolve();
  publication.reject(new Error(`EventBridge rejected ${publication.failures.length} of ${publication.total} events after a retry: ${publication.failures.join('; ')}`));
}

/** EventBridge's size of an entry: Time counts 14 bytes; Source, DetailType and Detail their UTF-8 bytes. */
function entryBytes(entry: PutEventsRequestEntry): number {
  return 14 + Buffer.byteLength(entry.Source ?? '') + Buffer.byteLength(entry.DetailType ?? '') + Buffer.byteLength(entry.Detail ?? '');
}
