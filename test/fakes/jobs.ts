/** In-memory jobs for use-case tests: the repository with the DynamoDB adapter's once-per-step rules, a queue that runs steps, exports in memory. */
import { copy } from './copy';
import { DateTime } from 'luxon';
import { Instant } from '../../functions/domain/instant';
import { createHash } from 'node:crypto';
import type {
  Dependencies, ExportDownload, ExportStore, JobFailure, JobKind, JobQueue, JobRepository, JobState, JobStep, StoredJob,
} from '../../functions/application/ports';
import { JOB_FAILURES_KEPT } from '../../functions/adapters/dynamodb/job-repository';
import { runJobStep } from '../../functions/handlers/job-steps/job-steps';

export class InMemoryJobRepository implements JobRepository {
  readonly jobs = new Map<string, StoredJob & { read: string[] }>();

  async create(job: StoredJob): Promise<void> {
    if (this.jobs.has(job.jobId)) throw new Error(`job ${job.jobId} exists`);
    this.jobs.set(job.jobId, { ...copy(job), read: [] });
  }

  async get(jobId: string): Promise<StoredJob | null> {
    const job = this.jobs.get(jobId);
    if (!job) return null;
    const { read: _read, ...rest } = copy(job);
    return { ...rest, failures: rest.failures.slice(0, JOB_FAILURES_KEPT) };
  }

  async list(query: { state?: JobState; kind?: JobKind; limit: number; after?: string | null }): Promise<{ items: StoredJob[]; next: string | null }> {
    const all = [...this.jobs.keys()].sort().reverse().filter((id) => !query.after || id < query.after);
    const matching: StoredJob[] = [];
    for (const id of all) {
      const job = (await this.get(id))!;
      if ((!query.state || job.state === query.state) && (!query.kind || job.kind === query.kind)) matching.push(job);
    }
    const items = matching.slice(0, query.limit);
    return { items, next: matching.length > query.limit ? items[items.length - 1].jobId : null };
  }

  async stepRead(jobId: string, step: string, count: number, opened: string[]): Promise<boolean> {
    const job = this.jobs.get(jobId);
    if (!job || job.read.includes(step)) return false;
    job.read.push(step);
    job.total += count;
    job.expected.push(...opened.filter((s) => !job.expected.includes(s)));
    if (job.finishedAt === null) job.state = 'running';
    return true;
  }

  async stepDone(jobId: string, step: string, outcome: { done: number; failed: number; failures: JobFailure[] }): Promise<StoredJob | null> {
    const job = this.jobs.get(jobId);
    if (!job || job.finished.includes(step)) return null;
    job.finished.push(step);
    job.done += outcome.done;
    job.failed += outcome.failed;
    // As the DynamoDB adapter: once JOB_FAILURES_KEPT are named, a step adds its counts only; the first ones are shown.
    if (job.failures.length < JOB_FAILURES_KEPT) job.failures.push(...outcome.failures.slice(0, JOB_FAILURES_KEPT));
    return this.get(jobId);
  }

  async finish(jobId: string, end: { state: Exclude<JobState, 'queued' | 'running'>; at: Instant; error: string | null; result: unknown }): Promise<boolean> {
    const job = this.jobs.get(jobId);
    if (!job || job.finishedAt !== null) return false;
    Object.assign(job, { state: end.state, finishedAt: end.at, error: end.error, result: end.result ?? null });
    return true;
  }
}

/**
 * The job queue as a use-case test needs it: steps wait until `runAll` (or, with `inline`, run as soon as they are
 * enqueued, after the request that started them has answered).
 */
export class RunningJobQueue implements JobQueue {
  readonly waiting: JobStep[] = [];
  deps: Dependencies | null = null;

  async enqueue(steps: JobStep[]): Promise<void> {
    this.waiting.push(...copy(steps));
  }

  /** Runs every waiting step, and the steps they open, until none is left. */
  async runAll(): Promise<void> {
    if (!this.deps) throw new Error('RunningJobQueue has no dependencies');
    for (let round = 0; round < 10_000 && this.waiting.length > 0; round++) await runJobStep(this.deps, this.waiting.shift()!);
  }
}

export class InMemoryExportStore implements ExportStore {
  readonly files = new Map<string, { contentType: string; text: string; token?: string; expiresAt?: Date; fileName?: string }>();
  /** Parts of files written in steps, by `<key>#<part>`. */
  readonly parts = new Map<string, string>();

  async write(key: string, contentType: string, lines: AsyncIterable<string>): Promise<{ bytes: number; sha256: string }> {
    let text = '';
    for await (const chunk of lines) text += chunk;
    // Written again (a step delivered twice), the file keeps a link made already, as the file store's sidecar does.
    this.files.set(key, { ...this.files.get(key), contentType, text });
    return { bytes: Buffer.byteLength(text), sha256: createHash('sha256').update(text).digest('hex') };
  }

  async writePart(key: string, part: number, lines: AsyncIterable<string>): Promise<{ bytes: number }> {
    let text = '';
    for await (const chunk of lines) text += chunk;
    this.parts.set(`${key}#${part}`, text);
    return { bytes: Buffer.byteLength(text) };
  }

  async combine(key: string, contentType: string, parts: number): Promise<{ bytes: number; sha256: string }> {
    const texts = Array.from({ length: parts }, (_, n) => this.parts.get(`${key}#${n}`));
    if (texts.some((t) => t === undefined)) {
      const file = this.files.get(key);
      if (!file) throw new Error(`export ${key}: a part is missing`);
      return { bytes: Buffer.byteLength(file.text), sha256: createHash('sha256').update(file.text).digest('hex') };
    }
    const written = await this.write(key, contentType, (async function* all() { yield* texts as string[]; })());
    for (let n = 0; n < parts; n += 1) this.parts.delete(`${key}#${n}`);
    return written;
  }

  async link(key: string, expiresAt: Date, fileName: string): Promise<string> {
    const file = this.files.get(key)!;
    // A link made already keeps its token and the later expiry (see FileExportStore.link).
    file.token ??= createHash('sha256').update(`${key}${expiresAt.toISOString()}`).digest('hex');
    if (!file.expiresAt || file.expiresAt < expiresAt) file.expiresAt = expiresAt;
    // The download is named as the link says (the file store keeps it in its sidecar).
    file.fileName = fileName;
    return `memory://exports/${key}?token=${file.token}`;
  }

  async open(key: string, token: string, now: Date): Promise<ExportDownload> {
    const file = this.files.get(key);
    if (!file || file.token !== token) return { kind: 'not_found' };
    if (file.expiresAt! <= now) return { kind: 'expired', expiresAt: Instant.fromDateTime(DateTime.fromJSDate(file.expiresAt!)) };
    return { kind: 'file', contentType: file.contentType, fileName: file.fileName ?? key, chunks: (async function* one() { yield file.text; })() };
  }
}
