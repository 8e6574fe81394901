// dynalite's per-request work that costs CPU for nothing on the embedded default, made cheaper without changing a byte
// of what it answers (plain JS: loaded by dynalite-worker.js on dynalite's thread, before dynalite itself).
//
// - Every answer's request id (`x-amzn-RequestId`) is 39 random bytes from `crypto.randomBytes`, a call into the
//   system's random source per request: about 6% of dynalite's thread in the CPU profile of a DynamoDB call. The bytes
//   are taken from a pool filled 39 x 256 bytes at a time (still the system's cryptographic random bytes, each used
//   once), as Node's own randomUUID does.
// - Every answer's `x-amz-crc32` is computed by buffer-crc32 in JavaScript over the whole body; Node's zlib computes
//   the same checksum natively (both over the UTF-8 bytes of the body).
// Both apply to this thread only (a worker's modules are its own).
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

module.exports = function leanRequestPath() {
  pooledRequestIdBytes();
  nativeCrc32();
};
