// dynalite's per-request work that costs CPU for nothing on the embedded default, made cheaper without changing a byte
// of what it answers (plain JS: loaded by dynalite-worker.js on dynalite's thread, before dynalite itself).
//
// - Every answer's request id (`x-amzn-RequestId`) is 39 random bytes from `crypto.randomBytes`, a call into the
//   system's random source per request: about 6% of dynalite's thread in the CPU profile of a DynamoDB call. The bytes
//   are taken from a pool filled 39 x 256 bytes at a time (still the system's cryptographic random bytes, each used
//   once), as Node's own randomUUID does.
// - Every answer's `x-amz-crc32` is computed by buffer-crc32 in JavaScript over the whole body; Node's zlib computes
//   the same checksum natively (both over the UTF-8 bytes of the body).
// - Every key dynalite makes (an item's, an index entry's) starts with six hex digits of an MD5 of its hash key (an
//   index entry's ends with an MD5 of the item's table key), each made with `crypto.createHash('md5')`: a native hash
//   object, three updates and a digest, several a request (about 5% of dynalite's thread in a profile of the
//   pipeline). The same digest comes from one call of `crypto.hash`, and a key met lately (an order's partition, written
//   again and again) from a map of the last few thousand.
// All apply to this thread only (a worker's modules are its own).
const crypto = require('node:crypto');
const { dirname } = require('node:path');
const zlib = require('node:zlib');

const REQUEST_ID_BYTES = 39;
const POOL_IDS = 256;

function pooledRequestIdBytes() {
  const randomBytes = crypto.randomBytes;
  let pool = Buffer.alloc(0);
  let offset = 0;
  crypto.randomBytes = function (size, callback) {
    if (size !== REQUEST_ID_BYTES || callback !== undefined) return randomBytes.apply(this, arguments);
    if (offset + size > pool.length) {
      pool = randomBytes(size * POOL_IDS);
      offset = 0;
    }
    // A copy of its own: the caller may keep or change it; the pool's bytes are never handed out twice.
    const bytes = Buffer.from(pool.subarray(offset, offset + size));
    offset += size;
    return bytes;
  };
}

function nativeCrc32() {
  if (typeof zlib.crc32 !== 'function') return;
  const crc32 = require(require.resolve('buffer-crc32', { paths: [dirname(require.resolve('dynalite'))] }));
  const unsigned = crc32.unsigned;
  crc32.unsigned = function (data) {
    return typeof data === 'string' || Buffer.isBuffer(data) ? zlib.crc32(data) : unsigned.apply(this, arguments);
  };
}

/** How many keys' digests are kept (a map of short strings; cleared when full). */
const MD5_KEPT = 4096;

class Md5Input {
  constructor(createHash, kept) {
    this.createHash = createHash;
    this.kept = kept;
    this.parts = [];
  }

  update(data, encoding) {
    this.parts.push(typeof data === 'string' ? Buffer.from(data, encoding) : data);
    return this;
  }

  digest(encoding) {
    const input = Buffer.concat(this.parts);
    if (encoding !== 'hex') return this.createHash('md5').update(input).digest(encoding);
    const key = input.toString('latin1');
    let digest = this.kept.get(key);
    if (digest === undefined) {
      digest = crypto.hash('md5', input, 'hex');
      if (this.kept.size >= MD5_KEPT) this.kept.clear();
      this.kept.set(key, digest);
    }
    return digest;
  }
}

function keptMd5() {
  if (typeof crypto.hash !== 'function') return;
  const createHash = crypto.createHash;
  const kept = new Map();
  crypto.createHash = function (algorithm, options) {
    if (algorithm === 'md5' && options === undefined) return new Md5Input(createHash, kept);
    return createHash.apply(this, arguments);
  };
}

module.exports = function leanRequestPath() {
  pooledRequestIdBytes();
  nativeCrc32();
  keptMd5();
};
