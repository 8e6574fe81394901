/**
 * dynalite's request path on the edge's thread (local/edge/dynalite-request-path.js): request ids from a pool of random
 * bytes, each byte handed out once, the answers' checksums computed natively, equal to buffer-crc32's, and the keys'
 * MD5s made in one call and kept, equal to a hash object's; and the
 * local DynamoDB answers with both as before: a 52-character id unique to each answer, a checksum of the body it sent.
 */
/* eslint-disable @typescript-eslint/no-require-imports */
import crypto from 'node:crypto';
import { LocalDynamo } from '../../../local/edge/dynamodb';

const originalRandomBytes = crypto.randomBytes;
const originalCreateHash = crypto.createHash;
let crc32: { unsigned: (data: string | Buffer) => number };
let original: { unsigned: (data: string | Buffer) => number };

beforeAll(() => {
  jest.isolateModules(() => {
    original = { unsigned: require('buffer-crc32').unsigned };
    require('../../../local/edge/dynalite-request-path.js')();
    crc32 = require('buffer-crc32');
  });
});
afterAll(() => {
  // Node's crypto module is this process's own: the test's worker gets it back as it was.
  crypto.randomBytes = originalRandomBytes;
  crypto.createHash = originalCreateHash;
});

test('request id bytes come from a pool: 39 each, never the same bytes twice, other sizes as before', () => {
  expect(crypto.randomBytes).not.toBe(originalRandomBytes);
  // Past the pool's 256 ids, so that it is filled again.
  const ids = Array.from({ length: 600 }, () => crypto.randomBytes(39));
  expect(ids.every((b) => Buffer.isBuffer(b) && b.length === 39)).toBe(true);
  expect(new Set(ids.map((b) => b.toString('hex'))).size).toBe(600);
  // Each a copy of its own: changing one leaves the next untouched.
  ids[0].fill(0);
  expect(crypto.randomBytes(39).equals(Buffer.alloc(39))).toBe(false);
  expect(crypto.randomBytes(16)).toHaveLength(16);
  return new Promise<void>((resolve) => crypto.randomBytes(39, (error, bytes) => {
    expect(error).toBeNull();
    expect(bytes).toHaveLength(39);
    resolve();
  }));
});

test('the checksum is buffer-crc32\'s, for text and bytes, ASCII or not', () => {
  expect(crc32.unsigned).not.toBe(original.unsigned);
  for (const body of ['', '{}', '{"Item":{"pk":{"S":"ORDER#o-1"},"name":{"S":"Café Délices ₹"}}}', 'x'.repeat(70_000)]) {
    expect(crc32.unsigned(body)).toBe(original.unsigned(body));
    expect(crc32.unsigned(Buffer.from(body))).toBe(original.unsigned(Buffer.from(body)));
  }
});

test('the MD5 of a key is the one a hash object makes, kept or not; other hashes and uses as before', () => {
  expect(crypto.createHash).not.toBe(originalCreateHash);
  const md5 = (...parts: Array<string | Buffer>) => {
    const hash = originalCreateHash('md5');
    for (const part of parts) hash.update(part);
    return hash.digest('hex');
  };
  // dynalite's own use: 'Outliers', then the hash key's bytes, then the range key's (empty for an item's key).
  const keys = ['ORDER#o-1', 'ORDER#o-2', 'Café ₹', '', 'x'.repeat(3000)].map((key) => Buffer.from(key, 'utf8'));
  for (let round = 0; round < 2; round += 1) {
    for (const key of keys) {
      for (const range of [Buffer.alloc(0), Buffer.from('VENDOR#v1')]) {
        expect(crypto.createHash('md5').update('Outliers').update(key).update(range).digest('hex')).toBe(md5('Outliers', key, range));
      }
    }
  }
  // Past the map's bound (it starts again): still the same digests.
  for (let i = 0; i < 5000; i += 1) expect(crypto.createHash('md5').update(`k${i}`).digest('hex')).toBe(md5(`k${i}`));
  expect(crypto.createHash('md5').update('abc').digest('base64')).toBe(originalCreateHash('md5').update('abc').digest('base64'));
  expect(crypto.createHash('md5').update('616263', 'hex').digest('hex')).toBe(md5('abc'));
  expect(crypto.createHash('sha256').update('abc').digest('hex')).toBe(originalCreateHash('sha256').update('abc').digest('hex'));
});

test('the local DynamoDB answers with a fresh request id and the checksum of its body', async () => {
  const dynamo = new LocalDynamo();
  try {
    const url = await dynamo.url();
    const ids = new Set<string>();
    for (let i = 0; i < 5; i += 1) {
      const answer = await fetch(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/x-amz-json-1.0', 'x-amz-target': 'DynamoDB_20120810.ListTables', 'x-amz-date': '20261126T180000Z',
          authorization: 'AWS4-HMAC-SHA256 Credential=local/20261126/us-east-1/dynamodb/aws4_request, SignedHeaders=host;x-amz-date, Signature=00',
        },
        body: JSON.stringify({ Limit: 10 + i }),
      });
      const body = await answer.text();
      expect(answer.status).toBe(200);
      expect(JSON.parse(body)).toEqual({ TableNames: [] });
      expect(Number(answer.headers.get('x-amz-crc32'))).toBe(original.unsigned(body));
      const id = answer.headers.get('x-amzn-requestid')!;
      expect(id).toMatch(/^[A-Z0-9]{52}$/);
      ids.add(id);
    }
    expect(ids.size).toBe(5);
  } finally {
    await dynamo.close();
  }
});
