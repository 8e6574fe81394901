/**
 * Every function's bundle loads functions/composition/no-event-streams.ts instead of the SDK's event-stream codec
 * (lib/holdback-function.ts aliases `@smithy/core/event-streams`), the api's and the jobs' with S3 too. Here the same
 * module stands in (jest's module mock, as the alias in a bundle): S3's client is built with it, and the production
 * export store writes a file through the multipart uploader and serves it by a pre-signed link from the local S3.
 */
import { createHash } from 'node:crypto';
import { startLocalS3 } from '../../local/edge/s3';

jest.mock('@smithy/core/event-streams', () => jest.requireActual('../../functions/composition/no-event-streams'));

// After the mock: S3's client then builds its config with the stand-in, as in a bundle.
/* eslint-disable @typescript-eslint/no-require-imports */
const { GetObjectCommand, S3Client } = require('@aws-sdk/client-s3') as typeof import('@aws-sdk/client-s3');
const { S3ExportStore } = require('../../functions/adapters/s3/s3-export-store') as typeof import('../../functions/adapters/s3/s3-export-store');
const { lazyClient } = require('../../functions/composition/compose') as typeof import('../../functions/composition/compose');
/* eslint-enable @typescript-eslint/no-require-imports */

let s3: Awaited<ReturnType<typeof startLocalS3>>;
let client: InstanceType<typeof S3Client>;
beforeAll(async () => {
  s3 = await startLocalS3({ exports: {} });
  client = new S3Client({ endpoint: s3.url, region: 'ap-south-1', forcePathStyle: true, credentials: { accessKeyId: 'test', secretAccessKey: 'test' }, maxAttempts: 1 });
});
afterAll(async () => {
  client.destroy();
  await s3.close();
});

it("S3's client is built with the stand-in's marshaller, which refuses an event stream with the alias's reason", () => {
  const { eventStreamMarshaller } = client.config as unknown as { eventStreamMarshaller: { serialize(): unknown; deserialize(): unknown } };
  expect(() => eventStreamMarshaller.serialize()).toThrow(/carries no event-stream support .*no-event-streams\.ts/);
  expect(() => eventStreamMarshaller.deserialize()).toThrow(/carries no event-stream support/);
});

it('the export store writes a file (multipart uploader), reads it back and serves it by a pre-signed link, through a client built at first use', async () => {
  // As functions/composition/services/s3.ts hands it over: the client built at its first use (lazyClient).
  const lazy = lazyClient(() => new S3Client({ endpoint: s3.url, region: 'ap-south-1', forcePathStyle: true, credentials: { accessKeyId: 'test', secretAccessKey: 'test' }, maxAttempts: 1 }));
  const store = new S3ExportStore(lazy, 'exports');
  const lines = ['orderId,vendorId,state\n', 'order-1,vendor-1,APPLIED\n', 'order-2,vendor-1,HELD\n'];
  const written = await store.write('exports/e-1/outcomes.csv', 'text/csv; charset=utf-8', (async function* rows() { yield* lines; })());
  const text = lines.join('');
  expect(written).toEqual({ bytes: Buffer.byteLength(text), sha256: createHash('sha256').update(text).digest('hex') });
  const object = await client.send(new GetObjectCommand({ Bucket: 'exports', Key: 'exports/e-1/outcomes.csv' }));
  expect(await object.Body!.transformToString()).toBe(text);
  const link = await store.link('exports/e-1/outcomes.csv', new Date(Date.now() + 3_600_000), 'outcomes.csv');
  expect(link).toContain('X-Amz-Signature=');
  const answer = await fetch(link);
  expect([answer.status, await answer.text()]).toEqual([200, text]);
  lazy.destroy();
});
