/**
 * keepOneSigner (functions/composition/kept-signer.ts): an SDK client signs every call with the one signer its
 * configuration made, and every signature is the one a fresh SigV4 signer computes for the same request.
 */
import { DynamoDBClient, GetItemCommand, type DynamoDBClientConfig } from '@aws-sdk/client-dynamodb';
import { SignatureV4 } from '@smithy/signature-v4';
import { keepOneSigner } from '../../functions/composition/kept-signer';

const credentials = { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY' };

interface Captured { method: string; protocol: string; hostname: string; port?: number; path: string; query?: Record<string, string>; headers: Record<string, string>; body?: unknown }

/** A client whose requests are captured as signed and answered with an empty item, nothing sent. */
function capturingClient(signWith: DynamoDBClientConfig['credentials'] = credentials): { client: DynamoDBClient; requests: Captured[] } {
  const requests: Captured[] = [];
  const requestHandler = {
    handle: async (request: Captured) => {
      requests.push({ ...request, headers: { ...request.headers } });
      const { Readable } = await import('node:stream');
      return { response: { statusCode: 200, headers: { 'content-type': 'application/x-amz-json-1.0' }, body: Readable.from([Buffer.from('{}')]) } };
    },
    updateHttpClientConfig: () => undefined,
    httpHandlerConfigs: () => ({}),
    destroy: () => undefined,
  };
  const client = new DynamoDBClient({ region: 'ap-south-1', credentials: signWith, endpoint: 'http://127.0.0.1:9', requestHandler: requestHandler as never });
  return { client, requests };
}

const signerOf = (client: DynamoDBClient) => (client.config as unknown as { signer: (scheme?: unknown) => Promise<unknown> }).signer;

test('each call is signed as a fresh SigV4 signer signs the same request at the same time', async () => {
  const { client, requests } = capturingClient();
  keepOneSigner(client);
  for (const id of ['o-1', 'o-2', 'o-3']) {
    await client.send(new GetItemCommand({ TableName: 'holdback-orders', Key: { pk: { S: `ORDER#${id}` }, sk: { S: 'META' } } }));
  }
  expect(requests).toHaveLength(3);
  const fresh = new SignatureV4({ credentials, region: 'ap-south-1', service: 'dynamodb', sha256: client.config.sha256 });
  for (const request of requests) {
    const { authorization, 'x-amz-date': amzDate, ...unsigned } = request.headers;
    const signingDate = new Date(amzDate.replace(/^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/, '$1-$2-$3T$4:$5:$6Z'));
    const resigned = await fresh.sign({ ...request, headers: unsigned } as never, { signingDate }) as unknown as Captured;
    expect(authorization).toMatch(/^AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE\/\d{8}\/ap-south-1\/dynamodb\/aws4_request, /);
    expect(resigned.headers.authorization).toBe(authorization);
  }
  client.destroy();
});

test('the signer is made once and kept, where the SDK alone makes one for every call', async () => {
  const { client } = capturingClient();
  await client.send(new GetItemCommand({ TableName: 't', Key: { pk: { S: 'a' } } }));
  expect(await signerOf(client)()).not.toBe(await signerOf(client)());
  keepOneSigner(client);
  const kept = await signerOf(client)();
  expect(await signerOf(client)()).toBe(kept);
  await client.send(new GetItemCommand({ TableName: 't', Key: { pk: { S: 'b' } } }));
  expect(await signerOf(client)()).toBe(kept);
  client.destroy();
});

test('a client without a signer is left as it is', () => {
  const client = { config: { region: 'ap-south-1' } };
  keepOneSigner(client);
  expect(client.config).toEqual({ region: 'ap-south-1' });
});

test('the signing key is derived once per credentials, day, region and service, not at every call', async () => {
  const { client, requests } = capturingClient();
  keepOneSigner(client);
  const derived: unknown[][] = [];
  // SignatureV4's key derivation (private in its types), counted on the prototype every signer shares.
  const proto = SignatureV4.prototype as unknown as { getSigningKey: (...args: unknown[]) => Promise<Uint8Array> };
  const original = proto.getSigningKey;
  proto.getSigningKey = function (this: unknown, ...args: unknown[]) {
    derived.push(args);
    return original.apply(this, args);
  };
  try {
    for (const id of ['k-1', 'k-2', 'k-3']) await client.send(new GetItemCommand({ TableName: 't', Key: { pk: { S: id } } }));
  } finally {
    proto.getSigningKey = original;
  }
  expect(requests).toHaveLength(3);
  // Without the kept keys SigV4 derives (and hashes the credentials for its own cache) at each of the three calls.
  expect(derived).toHaveLength(1);
  expect(derived[0][1]).toBe('ap-south-1');
  client.destroy();
});

test('rotated credentials get keys of their own, and their signatures are those of a fresh signer', async () => {
  // Credentials that expire within the SDK's refresh window are asked for again at each call, as a role's are near expiry.
  const soon = () => new Date(Date.now() + 1_000);
  let current = { ...credentials, expiration: soon() };
  const { client, requests } = capturingClient(async () => current);
  keepOneSigner(client);
  await client.send(new GetItemCommand({ TableName: 't', Key: { pk: { S: 'before' } } }));
  current = { accessKeyId: 'AKIDROTATED', secretAccessKey: 'rotated-secret-key-of-the-same-role', expiration: soon() };
  await client.send(new GetItemCommand({ TableName: 't', Key: { pk: { S: 'after' } } }));
  const [before, after] = requests;
  expect(before.headers.authorization).toContain('Credential=AKIDEXAMPLE/');
  expect(after.headers.authorization).toContain('Credential=AKIDROTATED/');
  const fresh = new SignatureV4({ credentials: { accessKeyId: current.accessKeyId, secretAccessKey: current.secretAccessKey }, region: 'ap-south-1', service: 'dynamodb', sha256: client.config.sha256 });
  const { authorization, 'x-amz-date': amzDate, ...unsigned } = after.headers;
  const signingDate = new Date(amzDate.replace(/^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/, '$1-$2-$3T$4:$5:$6Z'));
  const resigned = await fresh.sign({ ...after, headers: unsigned } as never, { signingDate }) as unknown as Captured;
  expect(resigned.headers.authorization).toBe(authorization);
  client.destroy();
});
