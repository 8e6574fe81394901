/**
 * Export files in the stack's S3 bucket (encrypted, public access blocked, TLS only, objects expiring), written once
 * by a multipart upload that streams the lines (memory stays flat whatever the size), served by a pre-signed GET. A
 * file written in steps has its parts as objects of their own (`<file>.part<n>`, a PutObject each, expiring with the
 * bucket's other objects); the last step streams them in order into the file's upload.
 */
import { createHash } from 'node:crypto';
import type { ExportStore } from '../../application/ports';
import type { S3Requests } from './s3-requests';

/** A pre-signed URL lasts at most this long (SigV4's limit is 7 days; the role's session may end sooner). */
const MAX_LINK_SECONDS = 7 * 24 * 3600;
/** A multipart upload's part: S3's smallest but the last (and @aws-sdk/lib-storage's default). */
export const PART_BYTES = 5 * 1024 * 1024;
/** Parts sent at once (lib-storage's default queue): memory stays within this many parts and the one being filled. */
const PARTS_IN_FLIGHT = 4;

export class S3ExportStore implements ExportStore {
  constructor(private readonly s3: S3Requests, private readonly bucket: string, private readonly now: () => Date = () => new Date()) {}

  async writePart(key: string, part: number, lines: AsyncIterable<string>): Promise<{ bytes: number }> {
    const chunks: Buffer[] = [];
    for await (const chunk of lines) chunks.push(Buffer.from(chunk, 'utf8'));
    const body = Buffer.concat(chunks);
    await this.s3.putObject(this.bucket, partKey(key, part), body);
    return { bytes: body.length };
  }

  async combine(key: string, contentType: string, parts: number): Promise<{ bytes: number; sha256: string }> {
    const { s3, bucket } = this;
    // The parts stay (the bucket expires them with the file): a step delivered again writes the same file again.
    return this.write(key, contentType, (async function* concatenated() {
      for (let part = 0; part < parts; part += 1) yield* await s3.getObject(bucket, partKey(key, part));
    })());
  }

  async write(key: string, contentType: string, lines: AsyncIterable<string | Uint8Array>): Promise<{ bytes: number; sha256: string }> {
    const hash = createHash('sha256');
    let bytes = 0;
    let filling: Buffer[] = [];
    let filled = 0;
    const upload = new MultipartUpload(this.s3, this.bucket, key, contentType);
    try {
      for await (const chunk of lines) {
        const buffer = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : Buffer.from(chunk);
        hash.update(buffer);
        bytes += buffer.length;
        filling.push(buffer);
        filled += buffer.length;
        if (filled >= PART_BYTES) {
          await upload.part(Buffer.concat(filling));
          filling = [];
          filled = 0;
        }
      }
      // A file smaller than a part is one PutObject (as lib-storage does); a larger one's upload is completed.
      await upload.finish(Buffer.concat(filling));
    } catch (error) {
      await upload.abort();
      throw error;
    }
    return { bytes, sha256: hash.digest('hex') };
  }

  async link(key: string, expiresAt: Date, fileName: string): Promise<string> {
    const seconds = Math.min(MAX_LINK_SECONDS, Math.max(1, Math.round((expiresAt.getTime() - this.now().getTime()) / 1000)));
    return this.s3.presignGetObject(this.bucket, key, seconds, { 'response-content-disposition': `attachment; filename="${fileName}"` });
  }
}

const partKey = (key: string, part: number): string => `${key}.part${String(part).padStart(6, '0')}`;

/**
 * The file's multipart upload, begun at its first full part: up to PARTS_IN_FLIGHT parts sent at once, completed in
 * order. An upload is only visible once completed, so a failed try leaves no partial object (it is aborted, and the
 * bucket's lifecycle aborts any stale one).
 */
class MultipartUpload {
  private uploadId: Promise<string> | null = null;
  private readonly etags: Promise<string>[] = [];
  private readonly inFlight = new Set<Promise<string>>();

  constructor(private readonly s3: S3Requests, private readonly bucket: string, private readonly key: string, private readonly contentType: string) {}

  async part(body: Buffer): Promise<void> {
    this.uploadId ??= this.s3.createMultipartUpload(this.bucket, this.key, this.contentType);
    const uploadId = await this.uploadId;
    while (this.inFlight.size >= PARTS_IN_FLIGHT) await Promise.race(this.inFlight);
    const etag = this.s3.uploadPart(this.bucket, this.key, uploadId, this.etags.length + 1, body);
    this.etags.push(etag);
    this.inFlight.add(etag);
    etag.then(() => this.inFlight.delete(etag), () => this.inFlight.delete(etag));
  }

  /** The last part (smaller than a part, perhaps empty) and the completion; or the whole file at once. */
  async finish(last: Buffer): Promise<void> {
    if (this.uploadId === null) return this.s3.putObject(this.bucket, this.key, last, { contentType: this.contentType });
    if (last.length > 0) await this.part(last);
    await this.s3.completeMultipartUpload(this.bucket, this.key, await this.uploadId, await Promise.all(this.etags));
  }

  async abort(): Promise<void> {
    if (this.uploadId === null) return;
    await Promise.allSettled(this.etags);
    const uploadId = await this.uploadId.catch(() => null);
    if (uploadId !== null) await this.s3.abortMultipartUpload(this.bucket, this.key, uploadId).catch(() => undefined);
  }
}
