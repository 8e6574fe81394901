/**
 * Stands in for `@smithy/core/checksum` in the bundles of the functions without S3 (lib/holdback-function.ts aliases
 * the subpath to this file). Their clients take only `Sha256` (signing, every client) and `Md5` (SQS's message
 * checksums) from it, and on Node the SDK's own classes are Node's crypto: they fall back to their JavaScript hashes
 * (Sha256Js, Md5Js, which the module carries into every bundle, about 2 KB gzipped) only where `createHash` throws, which
 * Node's crypto never does for SHA-256 and MD5 outside FIPS mode (Lambda's Node runtime is not). These are those Node
 * classes, as the SDK writes them: a hash or HMAC of node:crypto, digested into a Uint8Array. S3's client takes CRC32 and
 * stream hashers from the module too: its functions keep the SDK's module (a bundle that needs another export fails to
 * build, naming it).
 */
import { createHash, createHmac, type Hash, type Hmac } from 'node:crypto';

type SourceData = string | ArrayBuffer | ArrayBufferView;

function toBuffer(data: SourceData): string | Buffer {
  if (typeof data === 'string') return data;
  if (ArrayBuffer.isView(data)) return Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  return Buffer.from(data);
}

const bytesOf = (buf: Buffer): Uint8Array => new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength);

/** SHA-256, or with a secret HMAC-SHA-256 (SigV4's signing keys): @smithy/core's Sha256Node. */
export class Sha256 {
  readonly digestLength = 32;
  private finished = false;
  private hash: Hash | Hmac;

  constructor(private readonly secret?: SourceData) {
    this.hash = this.createHash();
  }

  update(data: SourceData): void {
    if (this.finished) throw new Error('Attempted to update an already finished hash.');
    this.hash.update(toBuffer(data));
  }

  async digest(): Promise<Uint8Array> {
    if (this.secret) {
      this.finished = true;
      return bytesOf(this.hash.digest());
    }
    return bytesOf((this.hash as Hash).copy().digest());
  }

  reset(): void {
    this.hash = this.createHash();
    this.finished = false;
  }

  private createHash(): Hash | Hmac {
    return this.secret ? createHmac('sha256', toBuffer(this.secret)) : createHash('sha256');
  }
}

/** MD5 (SQS checks each sent and received message body by it): @smithy/core's Md5Node. */
export class Md5 {
  readonly digestLength = 16;
  private hash = createHash('md5');

  update(data: SourceData): void {
    this.hash.update(toBuffer(data));
  }

  async digest(): Promise<Uint8Array> {
    return bytesOf(this.hash.copy().digest());
  }

  reset(): void {
    this.hash = createHash('md5');
  }
}
