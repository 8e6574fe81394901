/**
 * The audit log's write-once copy read back (AWS: `GET /audit/verify` and the audit export read it, not the table), a
 * page at a time: up to N objects under `log/` after a key (one ListObjectsV2 with StartAfter, then GetObject, a few at
 * a time), each line once however many objects hold it (a batch split by Lambda writes a line in two objects: the
 * README's `sort -u`), and what `tampering/` holds as evidence of a record or checkpoint changed or removed in the table.
 */
import { hash } from 'node:crypto';
import type { AuditCopy, AuditCopyContents, AuditCopyEvidence, AuditCopyPage } from '../../application/ports';
import { parseExportLine } from '../../domain/audit/audit-export';
import { CHECKPOINT_STREAM } from '../../domain/audit/audit-verification';
import { CHECKPOINT_PK } from '../../definitions/tables';
import type { S3Requests } from './s3-requests';

/** Objects read at once. */
const READS_IN_PARALLEL = 16;

export const ARCHIVE_LOG_PREFIX = 'log/';
export const ARCHIVE_TAMPERING_PREFIX = 'tampering/';

export class S3AuditCopy implements AuditCopy {
  constructor(private readonly s3: S3Requests, private readonly bucket: string) {}

  /** The whole copy in one read, page after page (a small copy; verification and export read it a page a step). */
  async read(): Promise<AuditCopyContents> {
    const contents: AuditCopyContents = { records: [], checkpoints: [], tampering: [], unreadable: [] };
    const seen = new Set<string>();
    for (const part of ['log', 'tampering'] as const) {
      let after: string | null = null;
      for (let more = true; more;) {
        const page: AuditCopyPage = await this.readPage(part, after, 1_000, seen);
        contents.records.push(...page.records);
        contents.checkpoints.push(...page.checkpoints);
        contents.tampering.push(...page.tampering);
        contents.unreadable.push(...page.unreadable);
        ({ last: after, more } = page);
      }
    }
    return contents;
  }

  /**
   * At most `maxObjects` objects of `log/` (or `tampering/`) after the key `startAfter` (ListObjectsV2 StartAfter with
   * MaxKeys: one listing call), in key order, each line once in the page (and once across pages that share `seen`).
   */
  async readPage(part: 'log' | 'tampering', startAfter: string | null, maxObjects: number, seen = new Set<string>()): Promise<AuditCopyPage> {
    const page: AuditCopyPage = { records: [], checkpoints: [], tampering: [], unreadable: [], last: startAfter, more: false, objects: 0 };
    const prefix = part === 'log' ? ARCHIVE_LOG_PREFIX : ARCHIVE_TAMPERING_PREFIX;
    const listed = await this.s3.listObjects(this.bucket, prefix, maxObjects, startAfter ?? undefined);
    const { keys } = listed;
    page.more = listed.truncated;
    for (let start = 0; start < keys.length; start += READS_IN_PARALLEL) {
      const bodies = await Promise.all(keys.slice(start, start + READS_IN_PARALLEL).map(async (key) => {
        return { key, body: await this.s3.getObjectText(this.bucket, key) };
      }));
      for (const { key, body } of bodies) {
        if (part === 'tampering') page.tampering.push(evidenceOf(key, body));
        else takeLines(page, key, body, seen);
        page.last = key;
        page.objects += 1;
      }
    }
    return page;
  }
}

/** An object's lines into the page, each line once (a batch split by Lambda writes a line in two objects). */
function takeLines(page: AuditCopyPage, key: string, body: string, seen: Set<string>): void {
  body.split('\n').forEach((line, index) => {
    if (line === '') return;
    const digest = hash('sha256', line, 'base64');
    if (seen.has(digest)) return;
    seen.add(digest);
    const parsed = parseExportLine(line);
    // A line is compared with the table by its place: one without a place is named, never looked up.
    if (parsed.kind === 'record' && typeof parsed.record.stream === 'string' && Number.isSafeInteger(parsed.record.sequence)) page.records.push(parsed.record);
    else if (parsed.kind === 'checkpoint' && Number.isSafeInteger(parsed.checkpoint.number)) page.checkpoints.push(parsed.checkpoint);
    else page.unreadable.push(`${key} line ${index + 1}: ${parsed.kind === 'invalid' ? parsed.reason : placeless(parsed.kind)}`);
  });
}

/** Why a line that parsed is not read as a record or checkpoint. */
function placeless(kind: string): string {
  if (kind === 'record') return 'a record without a stream (text) and a sequence (a whole number)';
  if (kind === 'checkpoint') return 'a checkpoint without a number (a whole number)';
  return 'is not a record or a checkpoint';
}

/** What a `tampering/` object says (audit-archive-copy.ts writes it); a body that does not parse is still evidence. */
function evidenceOf(key: string, body: string): AuditCopyEvidence {
  let value: Record<string, unknown> = {};
  try {
    value = JSON.parse(body) as Record<string, unknown>;
  } catch {
    // Kept as evidence by its key alone.
  }
  const image = (value.oldImage ?? value.newImage ?? {}) as Record<string, unknown>;
  const pk = typeof value.stream === 'string' ? value.stream : 'unknown';
  const stream = pk === CHECKPOINT_PK ? CHECKPOINT_STREAM : pk;
  const sequence = Number(value.sortKey ?? (pk === CHECKPOINT_PK ? image.number : image.sequence));
  const at = key.slice(ARCHIVE_TAMPERING_PREFIX.length, ARCHIVE_TAMPERING_PREFIX.length + 24);
  return { key, eventName: typeof value.eventName === 'string' ? value.eventName : 'unknown', stream, sequence: Number.isFinite(sequence) ? sequence : 0, at };
}
