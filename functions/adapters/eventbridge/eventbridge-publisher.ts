/** Puts Holdback's events, and marketplace order events received by webhook, on the EventBridge bus. */
import type { DateTime } from 'luxon';
import { EventBridgeClient, PutEventsCommand, type PutEventsRequestEntry } from '@aws-sdk/client-eventbridge';
import type { HoldbackEvent } from '../../domain/types';
import type { EventPublisher } from '../../application/ports';
import { DEFAULT_EVENT_SOURCE, HOLDBACK_EVENT_SOURCE } from '../../routing';

export interface EventBridgePublisherOptions {
  /** The bus (HOLDBACK_EVENT_BUS); "default" locally. */
  eventBusName: string;
  /** The marketplace's order-event source (HOLDBACK_EVENT_SOURCE), for events published on its behalf. */
  orderEventSource?: string;
  /** Stamps the events' `Time` (the shared clock locally); EventBridge's own time when absent. */
  now?: () => DateTime;
}

/** PutEvents takes at most 10 entries per call. */
const BATCH_SIZE = 10;

export class EventBridgePublisher implements EventPublisher {
  private readonly orderEventSource: string;

  constructor(private readonly client: EventBridgeClient, private readonly options: EventBridgePublisherOptions) {
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
      ...(this.options.now ? { Time: this.options.now().toJSDate() } : {}),
    };
  }

  private async put(entries: PutEventsRequestEntry[]): Promise<void> {
    for (let start = 0; start < entries.length; start += BATCH_SIZE) {
      await this.putBatch(entries.slice(start, start + BATCH_SIZE));
    }
  }

  /** Entries can fail alone: those are sent once more, then reported with their error codes. */
  private async putBatch(batch: PutEventsRequestEntry[]): Promise<void> {
    let pending = batch;
    for (let round = 1; ; round++) {
      const answer = await this.client.send(new PutEventsCommand({ Entries: pending }));
      if (!answer.FailedEntryCount) return;
      const failed = pending
        .map((entry, i) => ({ entry, result: answer.Entries?.[i] }))
        .filter(({ result }) => !result || result.ErrorCode);
      if (round >= 2) {
        const reasons = failed.map(({ entry, result }) =>
          `${entry.DetailType}: ${result?.ErrorCode ?? 'NoResult'}${result?.ErrorMessage ? ` (${result.ErrorMessage})` : ''}`);
        throw new Error(`EventBridge rejected ${failed.length} of ${pending.length} events after a retry: ${reasons.join('; ')}`);
      }
      pending = failed.map(({ entry }) => entry);
    }
  }
}
