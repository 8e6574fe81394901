/** The local SQS queues kept in the data folder: the in-memory store, every change journaled (append + fsync). */
import { join } from 'node:path';
import { RecordJournal } from '../../kit/durable-file';
import { InMemoryQueueStore, type QueueDefinition, type StoredMessage } from './queue';

type QueueRecord = { queue: QueueDefinition } | { in: string; message: StoredMessage };

/**
 * Reads are served from memory; each `defineQueue`, `put` and `remove` is also a journal line. At open, the journal's
 * queues and messages are loaded back (messages oldest first), so LocalQueues re-arms their visibility timers.
 */
export class JournaledQueueStore extends InMemoryQueueStore {
  private readonly journal: RecordJournal<QueueRecord>;

  constructor(folder: string) {
    super();
    this.journal = new RecordJournal<QueueRecord>(join(folder, 'queues.jsonl'));
    const kept = [...this.journal.loaded().values()];
    for (const record of kept) if ('queue' in record) super.defineQueue(record.queue);
    const messages = kept.flatMap((record) => ('message' in record ? [record] : []));
    messages.sort((a, b) => a.message.sentAt - b.message.sentAt);
    for (const { in: queue, message } of messages) super.put(queue, message);
  }

  override defineQueue(queue: QueueDefinition): void {
    super.defineQueue(queue);
    this.journal.put(`q\u0000${queue.name}`, { queue });
  }

  override put(queue: string, message: StoredMessage): void {
    super.put(queue, message);
    // A copy: the queue goes on changing its message object, and the journal line is the state at this call.
    this.journal.put(`m\u0000${queue}\u0000${message.messageId}`, { in: queue, message: { ...message } });
  }

  override remove(queue: string, messageId: string): void {
    super.remove(queue, messageId);
    this.journal.delete(`m\u0000${queue}\u0000${messageId}`);
  }

  /** Resolves once every change made before the call is on disk: await it before answering the call. */
  flush(): Promise<void> {
    return this.journal.flush();
  }

  close(): Promise<void> {
    return this.journal.close();
  }
}
