/** Gateway credentials at run time: read from Secrets Manager (a loopback server speaking its protocol), cached, rotated without a deploy, never logged. */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { buildDependencies, readRuntimeConfig } from '../../../functions/composition-root';
import { PLACEHOLDER_CLIENT_ID, SecretScrubber } from '../../../functions/adapters/secrets/gateway-credentials';
import { secretsManagerCredentials } from '../../../functions/adapters/secrets/secrets-manager-credentials';
import { JsonLinesLogger } from '../../../functions/adapters/logging/json-lines-logger';

let server: Server;
let secretString = '';
const asked: { target: string; secretId: string }[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { SecretId: string };
      asked.push({ target: String(req.headers['x-amz-target']), secretId: body.SecretId });
      res.setHeader('content-type', 'application/x-amz-json-1.1');
      res.end(JSON.stringify({ ARN: `arn:aws:secretsmanager:ap-south-1:123456789012:secret:${body.SecretId}`, Name: body.SecretId, SecretString: secretString, VersionId: 'v1' }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  process.env.AWS_ENDPOINT_URL_SECRETS_MANAGER = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  process.env.AWS_REGION = 'ap-south-1';
  process.env.AWS_ACCESS_KEY_ID = 'test';
  process.env.AWS_SECRET_ACCESS_KEY = 'test';
});

afterAll(async () => {
  delete process.env.AWS_ENDPOINT_URL_SECRETS_MANAGER;
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

test('reads the secret with GetSecretValue, caches it, and picks up a rotation once the cache expires', async () => {
  secretString = JSON.stringify({ clientId: 'client_a', clientSecret: 'secret_a_8812' });
  const scrubber = new SecretScrubber();
  const cached = secretsManagerCredentials('holdback/gateway', scrubber, 300);
  expect(await cached()).toEqual({ clientId: 'client_a', clientSecret: 'secret_a_8812' });
  secretString = JSON.stringify({ clientId: 'client_a', clientSecret: 'secret_b_9923' });
  const before = asked.length;
  // Within maxAge: the cached value, no call.
  expect((await cached()).clientSecret).toBe('secret_a_8812');
  expect(asked.length).toBe(before);
  // A source whose cache has expired (maxAge 0 here) asks again and gets the rotated value: no deploy involved.
  const uncached = secretsManagerCredentials('holdback/gateway-2', scrubber, 0);
  expect((await uncached()).clientSecret).toBe('secret_b_9923');
  expect(asked.at(-1)).toEqual({ target: 'secretsmanager.GetSecretValue', secretId: 'holdback/gateway-2' });
  // Both values, old and new, are scrubbed from anything logged.
  const lines: string[] = [];
  new JsonLinesLogger({ scrubber, write: (l) => lines.push(l) }).error('gateway said secret_a_8812 and secret_b_9923');
  expect(lines[0]).not.toMatch(/secret_a_8812|secret_b_9923/);
  expect(lines[0]).toContain('[redacted]');
});

test("a secret still holding the stack's placeholder is refused with what to put there", async () => {
  secretString = JSON.stringify({ clientId: PLACEHOLDER_CLIENT_ID, clientSecret: 'generated123' });
  await expect(secretsManagerCredentials('holdback/placeholder', new SecretScrubber(), 0)())
    .rejects.toThrow(/does not hold the gateway credentials yet; put \{"clientId": "...", "clientSecret": "..."\}/);
});

describe('readRuntimeConfig: credentials', () => {
  const base = {
    AWS_REGION: 'ap-south-1', HOLDBACK_ORDERS_TABLE: 'o', HOLDBACK_CONFIG_TABLE: 'c', HOLDBACK_REJECTED_TABLE: 'r',
    HOLDBACK_EVENT_BUS: 'b', HOLDBACK_GATEWAY_BASE_URL: 'https://api.example.com',
    HOLDBACK_RELEASE_QUEUE_ARN: 'arn:aws:sqs:ap-south-1:123456789012:q',
    HOLDBACK_SCHEDULER_ROLE_ARN: 'arn:aws:iam::123456789012:role/scheduler',
    HOLDBACK_RELEASE_QUEUE_URL: 'https://sqs.ap-south-1.amazonaws.com/123456789012/q',
  };

  test('on AWS a secret id, and no credential in any variable', () => {
    expect(readRuntimeConfig({ ...base, HOLDBACK_GATEWAY_SECRET_ID: 'holdback/gateway' }).gateway.credentials).toEqual({ secretId: 'holdback/gateway' });
  });

  test('a secret id next to credentials in variables is refused, naming both', () => {
    expect(() => readRuntimeConfig({ ...base, HOLDBACK_GATEWAY_SECRET_ID: 'x', HOLDBACK_GATEWAY_CLIENT_SECRET: 's' }))
      .toThrow(/HOLDBACK_GATEWAY_SECRET_ID and HOLDBACK_GATEWAY_CLIENT_ID\/HOLDBACK_GATEWAY_CLIENT_SECRET are both set/);
  });

  test('neither names the secret id to set', () => {
    expect(() => readRuntimeConfig(base)).toThrow(/HOLDBACK_GATEWAY_SECRET_ID is not set; set it to the ARN or name/);
  });

  test('the composition root derives whether releases run from the secret: not while it holds the placeholder, at once when filled in (a fresh cache)', async () => {
    const logger = { info: () => undefined, warn: () => undefined, error: () => undefined };
    secretString = JSON.stringify({ clientId: PLACEHOLDER_CLIENT_ID, clientSecret: 'generated123' });
    const waiting = buildDependencies(readRuntimeConfig({ ...base, HOLDBACK_GATEWAY_SECRET_ID: 'holdback/ready-1' }), { logger });
    expect(await waiting.gatewayReady!()).toBe(false);
    secretString = JSON.stringify({ clientId: 'client_r', clientSecret: 'secret_r_5521' });
    const filled = buildDependencies(readRuntimeConfig({ ...base, HOLDBACK_GATEWAY_SECRET_ID: 'holdback/ready-2' }), { logger });
    expect(await filled.gatewayReady!()).toBe(true);
    // Fixed credentials (the embedded default) are always there: no check at all.
    const local = buildDependencies(readRuntimeConfig({ ...base, HOLDBACK_GATEWAY_CLIENT_ID: 'c', HOLDBACK_GATEWAY_CLIENT_SECRET: 's', AWS_ENDPOINT_URL: 'http://127.0.0.1:9' }), { logger });
    expect(local.gatewayReady).toBeUndefined();
  });
});
