/**
 * functions/composition/node-checksums.ts, which the bundles without S3 load instead of @smithy/core/checksum, hashes
 * as the SDK's own classes do: SHA-256, HMAC-SHA-256 (SigV4's signing keys) and MD5 (SQS's message checksums), checked
 * against the SDK's JavaScript hashes, which it no longer carries, on strings, bytes and buffers.
 */
import { Md5Js, Sha256Js } from '@smithy/core/checksum';
import { Md5, Sha256 } from '../../functions/composition/node-checksums';

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');

const INPUTS: (string | Uint8Array | ArrayBuffer)[] = [
  '', 'abc', 'Action=SendMessage&MessageBody=%7B%22releaseKey%22%3A%22o-1-v-1-1%22%7D', '₹ 1,00,000.00 settled', 'x'.repeat(10_000),
  new Uint8Array([0, 1, 2, 255]), Buffer.from('a buffer'), new Uint8Array(Buffer.from('a view into a larger buffer')).subarray(2, 12), new Uint8Array([9, 8, 7]).buffer,
];

describe('the Node checksums the bundles without S3 carry', () => {
  it('SHA-256 and HMAC-SHA-256 as the SDK computes them, across updates and after a reset', async () => {
    for (const input of INPUTS) {
      for (const secret of [undefined, 'AWS4secret', new Uint8Array([1, 2, 3, 4])]) {
        const [ours, sdk] = [new Sha256(secret), new Sha256Js(secret)];
        ours.update(input); ours.update('tail');
        sdk.update(input); sdk.update('tail');
        expect(hex(await ours.digest())).toBe(hex(await sdk.digest()));
        // After a reset, the same hash as a new one's (the SDK's JavaScript HMAC stays finished: compared with a new one).
        ours.reset();
        const fresh = new Sha256Js(secret);
        ours.update(input); fresh.update(input);
        expect(hex(await ours.digest())).toBe(hex(await fresh.digest()));
      }
    }
    expect(new Sha256().digestLength).toBe(32);
  });

  it('a plain SHA-256 can be digested twice; an HMAC refuses more input once digested, as the SDK\'s', async () => {
    const hash = new Sha256();
    hash.update('abc');
    expect(hex(await hash.digest())).toBe(hex(await hash.digest()));
    const hmac = new Sha256('key');
    hmac.update('abc');
    await hmac.digest();
    expect(() => hmac.update('more')).toThrow('Attempted to update an already finished hash.');
  });

  it('MD5 as the SDK computes it (SQS compares it with the queue\'s MD5OfMessageBody)', async () => {
    for (const input of INPUTS) {
      const [ours, sdk] = [new Md5(), new Md5Js()];
      ours.update(input); sdk.update(input);
      expect(hex(await ours.digest())).toBe(hex(await sdk.digest()));
    }
    const md5 = new Md5();
    md5.update('hello');
    expect(hex(await md5.digest())).toBe('5d41402abc4b2a76b9719d911017c592');
    md5.reset();
    expect(hex(await md5.digest())).toBe('d41d8cd98f00b204e9800998ecf8427e');
  });
});
