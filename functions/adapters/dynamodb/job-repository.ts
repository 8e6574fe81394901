/**
 * Jobs (contract 6.3) in the config table: `JOBS`/`<jobId>`, one partition (jobs are people's bulk changes and
 * exports, a few a minute at most), ids sortable by creation time so that a query lists them newest first. Each step
 * of a job is recorded once by a conditional update on string sets (`expected`, `finished`): a step delivered twice
 * counts once, and the job is done when both sets hold the same steps.
 */
import type { DocumentClient, Plain } from './document-client';
import type { JobFailure, JobKind, JobRepository, JobState, StoredJob } from '../../application/ports';
import type { Instant } from '../../domain/instant';
import { isConditionalCheckFailed, withoutKeys } from './item-keys';

const JOBS_PK = 'JOBS';
/** The failures a job keeps by name (each with its release and reason); more are counted in `failed`. */
export const JOB_FAILURES_KEPT = 100;

export class DynamoJobRepository implements JobRepository {
  constructor(private readonly doc: DocumentClient, private readonly tableName: string) {}

  async create(job: StoredJob): Promise<void> {
    const { expected, finished, ...rest } = job;
    await this.doc.put({
      TableName: this.tableName,
      Item: { pk: JOBS_PK, sk: job.jobId, ...rest, expected: new Set(expected), ...(finished.length ? { finished: new Set(finished) } : {}) },
      ConditionExpression: 'attribute_not_exists(pk)',
    });
  }

  async get(jobId: string): Promise<StoredJob | null> {
    const item = await this.doc.get({ TableName: this.tableName, Key: { pk: JOBS_PK, sk: jobId }, ConsistentRead: true });
    return item ? jobOf(item) : null;
  }

  async list(query: { state?: JobState; kind?: JobKind; limit: number; after?: string | null }): Promise<{ items: StoredJob[]; next: string | null }> {
    const items: StoredJob[] = [];
    const filters: string[] = [];
    const names: Record<string, string> = { '#pk': 'pk' };
    const values: Plain = { ':pk': JOBS_PK };
    if (query.state) { filters.push('#state = :state'); names['#state'] = 'state'; values[':state'] = query.state; }
    if (query.kind) { filters.push('#kind = :kind'); names['#kind'] = 'kind'; values[':kind'] = query.kind; }
    let start: Plain | undefined = query.after ? { pk: JOBS_PK, sk: query.after } : undefined;
    do {
      const page = await this.doc.query({
        TableName: this.tableName,
        KeyConditionExpression: '#pk = :pk',
        ...(filters.length ? { FilterExpression: filters.join(' AND ') } : {}),
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: values,
        ScanIndexForward: false,
        ExclusiveStartKey: start,
        Limit: query.limit + 1,
      });
      for (const item of page.items) items.push(jobOf(item));
      start = page.lastEvaluatedKey;
    } while (start && items.length <= query.limit);
    const more = items.length > query.limit || start !== undefined;
    const kept = items.slice(0, query.limit);
    return { items: kept, next: more && kept.length > 0 ? kept[kept.length - 1].jobId : null };
  }

  async stepRead(jobId: string, step: string, count: number, opened: string[]): Promise<boolean> {
    try {
      await this.doc.update({
        TableName: this.tableName,
        Key: { pk: JOBS_PK, sk: jobId },
        UpdateExpression: `ADD #read :step, #total :count${opened.length ? ', #expected :opened' : ''} SET #state = if_not_exists(#finishedAt, :running)`,
        ConditionExpression: 'attribute_exists(pk) AND NOT contains(#read, :name)',
        ExpressionAttributeNames: { '#read': 'read', '#total': 'total', '#state': 'state', '#finishedAt': 'finishedAtKey', ...(opened.length ? { '#expected': 'expected' } : {}) },
        ExpressionAttributeValues: { ':step': new Set([step]), ':name': step, ':count': count, ':running': 'running', ...(opened.length ? { ':opened': new Set(opened) } : {}) },
      });
      return true;
    } catch (error) {
      if (isConditionalCheckFailed(error)) return false;
      throw error;
    }
  }

  async stepDone(jobId: string, step: string, outcome: { done: number; failed: number; failures: JobFailure[] }): Promise<StoredJob | null> {
    const failures = outcome.failures.slice(0, JOB_FAILURES_KEPT);
    // The failures named are the first JOB_FAILURES_KEPT: once the list holds that many, a step adds only its counts,
    // so that a job with many failing releases never grows its item towards DynamoDB's 400 KB.
    if (failures.length > 0) {
      const named = await this.recordStep(jobId, step, outcome, failures);
      if (named !== undefined) return named;
    }
    return (await this.recordStep(jobId, step, outcome, [])) ?? null;
  }

  /** The step's counts (and failures) added once; null when the step was recorded before; undefined when the list is full. */
  private async recordStep(jobId: string, step: string, outcome: { done: number; failed: number }, failures: JobFailure[]): Promise<StoredJob | null | undefined> {
    const naming = failures.length > 0;
    try {
      const item = await this.doc.update({
        TableName: this.tableName,
        Key: { pk: JOBS_PK, sk: jobId },
        UpdateExpression: `ADD #finished :step, #done :done, #failed :failed${naming ? ' SET #failures = list_append(if_not_exists(#failures, :none), :failures)' : ''}`,
        ConditionExpression: `attribute_exists(pk) AND NOT contains(#finished, :name)${naming ? ' AND (attribute_not_exists(#failures) OR size(#failures) < :kept)' : ''}`,
        ExpressionAttributeNames: { '#finished': 'finished', '#done': 'done', '#failed': 'failed', ...(naming ? { '#failures': 'failures' } : {}) },
        ExpressionAttributeValues: {
          ':step': new Set([step]), ':name': step, ':done': outcome.done, ':failed': outcome.failed,
          ...(naming ? { ':none': [], ':failures': failures, ':kept': JOB_FAILURES_KEPT } : {}),
        },
        ReturnValues: 'ALL_NEW',
      });
      return item ? jobOf(item) : null;
    } catch (error) {
      if (!isConditionalCheckFailed(error)) throw error;
      // Naming failures: the step may be recorded already, or the list full; the counts-only write tells them apart.
      return naming ? undefined : null;
    }
  }

  async finish(jobId: string, end: { state: Exclude<JobState, 'queued' | 'running'>; at: Instant; error: string | null; result: unknown }): Promise<boolean> {
    try {
      await this.doc.update({
        TableName: this.tableName,
        Key: { pk: JOBS_PK, sk: jobId },
        // `finishedAtKey` marks the end for stepRead's state (a late step never makes an ended job `running` again).
        UpdateExpression: 'SET #state = :state, #finishedAt = :at, #finishedAtKey = :state, #error = :error, #result = :result',
        ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(#finishedAtKey)',
        ExpressionAttributeNames: { '#state': 'state', '#finishedAt': 'finishedAt', '#finishedAtKey': 'finishedAtKey', '#error': 'error', '#result': 'result' },
        ExpressionAttributeValues: { ':state': end.state, ':at': end.at, ':error': end.error, ':result': end.result ?? null },
      });
      return true;
    } catch (error) {
      if (isConditionalCheckFailed(error)) return false;
      throw error;
    }
  }
}

function jobOf(item: Plain): StoredJob {
  const { expected, finished, read: _read, finishedAtKey: _end, failures, ...rest } = withoutKeys<Plain>(item, [], ['createdAt', 'finishedAt']);
  return {
    ...(rest as Omit<StoredJob, 'expected' | 'finished' | 'failures'>),
    failures: ((failures as JobFailure[] | undefined) ?? []).slice(0, JOB_FAILURES_KEPT),
    expected: [...((expected as Set<string> | undefined) ?? [])],
    finished: [...((finished as Set<string> | undefined) ?? [])],
  };
}
