/**
 * Every function's bundle loads functions/composition/no-event-streams.ts instead of the SDK's event-stream codec
 * (lib/holdback-function.ts aliases `@smithy/core/event-streams`). Here the same module stands in (jest's module mock,
 * as the alias in a bundle): S3's client, whose config resolver imports the module statically, is built with it. (No
 * function bundles S3's client any more: adapters/s3/s3-requests.ts, tested in test/adapters/aws-requests.test.ts.)
 */
import { startLocalS3 } from '../../local/edge/s3';

jest.mock('@smithy/core/event-streams', () => jest.requireActual('../../functions/composition/no-event-streams'));

// After the mock: S3's client then builds its config with the stand-in, as in a bundle.
/* eslint-disable @typescript-eslint/no-require-imports */
const { S3Client } = require('@aws-sdk/client-s3') as typeof import('@aws-sdk/client-s3');
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
