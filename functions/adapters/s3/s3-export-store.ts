/**
 * Export files in the stack's S3 bucket (encrypted, public access blocked, TLS only, objects expiring), written once
 * by a multipart upload that streams the lines (memory stays flat whatever the size), served by a pre-signed GET. A
 * file written in steps has its parts as objects of their own (`<file>.part<n>`, a PutObject each, expiring with the
 * bucket's other objects); the last step streams them in order into the file's upload.
 */
import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { GetObjectCommand, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import type { ExportStore } from '../../application/ports';

/** A pre-signed URL lasts at most this long (SigV4's limit is 7 days; the role's session may end sooner). */
const MAX_LINK_SECONDS = 7 * 24 * 3600;

export class S3ExportStore implements ExportStore {
  constructor(private readonly client: S3Client, private readonly bucket: string, private readonly now: () => Date = () => new Date()) {}

  async writePart(key: string, part: number, lines: AsyncIterable<string>): Promise<{ bytes: number }> {
    const chunks: Buffer[] = [];
    for await (const chunk of lines) chunks.push(Buffer.from(chunk, 'utf8'));
    const body = Buffer.concat(chunks);
    await this.client.send(new PutObjectCommand({ Bucket: this.bucket, Key: partKey(key, part), Body: body }));
    return { bytes: body.length };
  }

  async combine(key: string, contentType: string, parts: number): Promise<{ bytes: number; sha256: string }> {
    const { client, bucket } = this;
    // The parts stay (the bucket expires them with the file): a step delivered again writes the same file again.
    return this.write(key, contentType, (async function* concatenated() {
      for (let part = 0; part < parts; part += 1) {
        const object = await client.send(new GetObjectCommand({ Bucket: bucket, Key: partKey(key, part) }));
        yield* object.Body as AsyncIterable<Uint8Array>;
      }
    })());
  }

  async write(key: string, contentType: string, lines: AsyncIterable<string | Uint8Array>): Promise<{ bytes: number; sha256: string }> {
    const hash = createHash('sha256');
    let bytes = 0;
    const body = Readable.from((async function* hashed() {
      for await (const chunk of lines) {
        const buffer = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : Buffer.from(chunk);
        hash.update(buffer);
        bytes += buffer.length;
        yield buffer;
      }
    })());
    // An upload is only visible once completed: a failed try leaves no partial object (the bucket aborts stale parts).
    await new Upload({ client: this.client, params: { Bucket: this.bucket, Key: key, Body: body, ContentType: contentType } }).done();
    return { bytes, sha256: hash.digest('hex') };
  }

  async link(key: string, expiresAt: Date, fileName: string): Promise<string> {
    const seconds = Math.min(MAX_LINK_SECONDS, Math.max(1, Math.round((expiresAt.getTime() - this.now().getTime()) / 1000)));
    return getSignedUrl(this.client, new GetObjectCommand({
      Bucket: this.bucket, Key: key, ResponseContentDisposition: `attachment; filename="${fileName}"`,
    }), { expiresIn: seconds });
  }
}

const partKey = (key: string, part: number): string => `${key}.part${String(part).padStart(6, '0')}`;
