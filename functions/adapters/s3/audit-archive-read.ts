/**
 * The audit log's write-once copy read back (AWS: `GET /audit/verify` and the audit export read it, not the table):
 * every object under `log/` (ListObjectsV2, then GetObject, a few at a time), each line once however many objects
 * hold it (a batch split by Lambda writes a line in two objects: the README's `sort -u`), and what `tampering/` holds
 * as evidence of a record or checkpoint changed or removed in the table.
 */
import { GetObjectCommand, ListObjectsV2Command, type S3Client } from '@aws-sdk/client-s3';
import { hash } from 'node:crypto';
import type { AuditCopy, AuditCopyContents, AuditCopyEvidence } from '../../application/ports';
import { parseExportLine } from '../../domain/audit/audit-export';
import { CHECKPOINT_STREAM } from '../../domain/audit/audit-verification';
import { CHECKPOINT_PK } from '../../definitions/tables';

/** Objects read at once. */
const READS_IN_PARALLEL = 16;

export const ARCHIVE_LOG_PREFIX = 'log/';
export const ARCHIVE_TAMPERING_PREFIX = 'tampering/';

export class S3AuditCopy implements AuditCopy {
  constructor(private readonly s3: S3Client, private readonly bucket: string) {}

  async read(): Promise<AuditCopyContents> {
    const contents: AuditCopyContents = { records: [], checkpoints: [], tampering: [], unreadable: [] };
    const seen = new Set<string>();
    await this.eachObject(ARCHIVE_LOG_PREFIX, (key, body) => {
      body.split('\n').forEach((line, index) => {
        if (line === '') return;
        const digest = hash('sha256', line, 'base64');
        if (seen.has(digest)) return;
        seen.add(digest);
        const parsed = parseExportLine(line);
        if (parsed.kind === 'record') contents.records.push(parsed.record);
        else if (parsed.kind === 'checkpoint') contents.checkpoints.push(parsed.checkpoint);
        else contents.unreadable.push(`${key} line ${index + 1}: ${parsed.kind === 'invalid' ? parsed.reason : 'is not a record or a checkpoint'}`);
      });
    });
    await this.eachObject(ARCHIVE_TAMPERING_PREFIX, (key, body) => {
      contents.tampering.push(evidenceOf(key, body));
    });
    return contents;
  }

  /** Lists every key under `prefix` and hands each object's text to `take`, READS_IN_PARALLEL objects at a time. */
  private async eachObject(prefix: string, take: (key: string, body: string) => void): Promise<void> {
    let token: string | undefined;
    do {
      const page = await this.s3.send(new ListObjectsV2Command({ Bucket: this.bucket, Prefix: prefix, ContinuationToken: token }));
      const keys = (page.Contents ?? []).map((object) => object.Key).filter((key): key is string => key !== undefined);
      for (let start = 0; start < keys.length; start += READS_IN_PARALLEL) {
        const bodies = await Promise.all(keys.slice(start, start + READS_IN_PARALLEL).map(async (key) => {
          const object = await this.s3.send(new GetObjectCommand({ Bucket: this.bucket, Key: key }));
          return { key, body: (await object.Body?.transformToString('utf-8')) ?? '' };
        }));
        for (const { key, body } of bodies) take(key, body);
      }
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
  }
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
