/**
 * The S3, KMS, SQS, EventBridge, Scheduler and Secrets Manager calls without SDK clients
 * (adapters/aws-http/signed-request.ts, s3/s3-requests.ts, kms/kms-requests.ts, sqs/sqs-requests.ts,
 * eventbridge/eventbridge-requests.ts, scheduler/scheduler-requests.ts, secrets/secrets-manager-credentials.ts) against
 * the SDK's own clients: through a recording door in front of the
 * local S3 (local/edge/s3.ts), a scripted KMS and a scripted SQS, each operation goes out as the SDK's client sends it (method, path, query, the headers that carry meaning, the
 * body), its SigV4 signature verifies with the SDK's signer, a pre-signed link is the SDK presigner's, character for
 * character, and a multipart upload of an export larger than a part is written, read back and hashed.
 */
import { createHash, generateKeyPairSync } from 'node:crypto';
import { createServer, request, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Sha256 } from '@aws-crypto/sha256-js';
import {
  AbortMultipartUploadCommand, CompleteMultipartUploadCommand, CreateMultipartUploadCommand, GetObjectCommand, ListObjectsV2Command, PutObjectCommand, S3Client,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import { DescribeKeyCommand, GetPublicKeyCommand, KMSClient, SignCommand } from '@aws-sdk/client-kms';
import { SendMessageBatchCommand, SQSClient } from '@aws-sdk/client-sqs';
import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { CreateScheduleCommand, DeleteScheduleCommand, SchedulerClient } from '@aws-sdk/client-scheduler';
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { SignatureV4 } from '@smithy/signature-v4';
import { S3Requests } from '../../functions/adapters/s3/s3-requests';
import { PART_BYTES, S3ExportStore } from '../../functions/adapters/s3/s3-export-store';
import { KmsRequests } from '../../functions/adapters/kms/kms-requests';
import { SqsRequests } from '../../functions/adapters/sqs/sqs-requests';
import { EventBridgeRequests } from '../../functions/adapters/eventbridge/eventbridge-requests';
import { SchedulerRequests } from '../../functions/adapters/scheduler/scheduler-requests';
import { secretsManagerCredentials } from '../../functions/adapters/secrets/secrets-manager-credentials';
import { SecretScrubber } from '../../functions/adapters/secrets/gateway-credentials';
import { meterAwsCalls, AwsCallTally } from '../../bench/aws-call-meter';
import { startLocalS3 } from '../../local/edge/s3';
import { answer, startScriptedServer, type ScriptedServer } from './gateway/scripted-http-server';

const REGION = 'ap-south-1';
const CREDENTIALS = { accessKeyId: 'AKIDTEST', secretAccessKey: 'test-secret' };

interface Seen { method: string; url: string; headers: IncomingHttpHeaders; body: Buffer }

let s3: Awaited<ReturnType<typeof startLocalS3>>;
let door: Server;
let doorUrl = '';
const seen: Seen[] = [];

beforeAll(async () => {
  s3 = await startLocalS3({ exports: {}, archive: { writeOnce: true } });
  // Records each request whole, then hands it to the local S3 and its answer back.
  door = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      const upstream = new URL(s3.url);
      const forwarded = request({ host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: { ...req.headers, host: upstream.host } }, (reply) => {
        res.writeHead(reply.statusCode ?? 502, reply.headers);
        reply.pipe(res);
      });
      forwarded.end(body);
    });
  });
  await new Promise<void>((resolve) => door.listen(0, '127.0.0.1', resolve));
  doorUrl = `http://127.0.0.1:${(door.address() as AddressInfo).port}`;
});

afterAll(async () => {
  door.closeAllConnections();
  await new Promise<void>((resolve) => door.close(() => resolve()));
  await s3.close();
});

const sdk = () => new S3Client({ endpoint: doorUrl, region: REGION, credentials: CREDENTIALS, maxAttempts: 1 });
const lean = () => new S3Requests({ endpoint: doorUrl, region: REGION, credentials: CREDENTIALS });

/** `x-amz-date` (20261126T103000Z) as a Date. */
const amzDate = (text: string): Date => new Date(`${text.slice(0, 4)}-${text.slice(4, 6)}-${text.slice(6, 8)}T${text.slice(9, 11)}:${text.slice(11, 13)}:${text.slice(13, 15)}Z`);

/** Whether a received request's Authorization is what the SDK's signer makes of it (its own signed headers, its date). */
async function signatureVerifies(r: Seen, service: string): Promise<boolean> {
  const authorization = String(r.headers.authorization ?? '');
  const signedHeaders = /SignedHeaders=([^,]+)/.exec(authorization)?.[1].split(';') ?? [];
  const url = new URL(r.url, 'http://placeholder');
  const query: Record<string, string> = {};
  for (const [name, value] of url.searchParams) query[name] = value;
  const headers: Record<string, string> = {};
  for (const name of signedHeaders) headers[name] = String(r.headers[name] ?? '');
  const signer = new SignatureV4({ service, region: REGION, credentials: CREDENTIALS, sha256: Sha256, uriEscapePath: service !== 's3' });
  const signed = await signer.sign({ method: r.method, protocol: 'http:', hostname: '127.0.0.1', path: url.pathname, query, headers, body: r.body }, { signingDate: amzDate(headers['x-amz-date']) });
  return signedHeaders.length > 0 && signed.headers.authorization === authorization;
}

/** What of a request carries meaning to S3: method, path, query (the SDK's `x-id` operation tag aside), the headers that say what to do, the body. */
function meaning(r: Seen) {
  const url = new URL(r.url, 'http://placeholder');
  const query = [...url.searchParams].filter(([name]) => name !== 'x-id').sort();
  const headers = Object.fromEntries(['content-type', 'if-none-match', 'x-amz-checksum-sha256'].filter((h) => r.headers[h] !== undefined).map((h) => [h, r.headers[h]]));
  return { method: r.method, path: url.pathname, query, headers, body: r.body.toString('utf8') };
}

/** The one request `call` makes, recorded at the door. */
async function recorded(call: () => Promise<unknown>): Promise<Seen> {
  const from = seen.length;
  await call().catch(() => undefined);
  expect(seen.length - from).toBe(1);
  return seen[from];
}

test('each S3 operation goes out as the SDK client sends it, and its signature verifies with the SDK signer', async () => {
  const client = sdk();
  const ours = lean();
  const line = Buffer.from('{"type":"record","n":1}\n');
  const pairs: [string, Seen, Seen][] = [];
  const pair = async (name: string, theirs: () => Promise<unknown>, mine: () => Promise<unknown>) => { pairs.push([name, await recorded(theirs), await recorded(mine)]); };
  await pair('PutObject (write-once)', () => client.send(new PutObjectCommand({ Bucket: 'archive', Key: 'log/2022-12-02/e1 (a)+b.ndjson', Body: line, ContentType: 'application/x-ndjson', ChecksumAlgorithm: 'SHA256', IfNoneMatch: '*' })),
    () => ours.putObject('archive', 'log/2022-12-02/e1 (a)+b.ndjson', line, { contentType: 'application/x-ndjson', sha256Checksum: true, ifNoneMatch: true }));
  await pair('GetObject', () => client.send(new GetObjectCommand({ Bucket: 'archive', Key: 'log/2022-12-02/e1 (a)+b.ndjson' })), () => ours.getObjectText('archive', 'log/2022-12-02/e1 (a)+b.ndjson'));
  await pair('ListObjectsV2', () => client.send(new ListObjectsV2Command({ Bucket: 'archive', Prefix: 'log/', MaxKeys: 7, StartAfter: 'log/2022' })), () => ours.listObjects('archive', 'log/', 7, 'log/2022'));
  await pair('CreateMultipartUpload', () => client.send(new CreateMultipartUploadCommand({ Bucket: 'exports', Key: 'x/file.csv', ContentType: 'text/csv' })), () => ours.createMultipartUpload('exports', 'x/file.csv', 'text/csv'));
  await pair('UploadPart', () => client.send(new UploadPartCommand({ Bucket: 'exports', Key: 'x/file.csv', UploadId: 'upload-1', PartNumber: 2, Body: line })), () => ours.uploadPart('exports', 'x/file.csv', 'upload-1', 2, line));
  await pair('CompleteMultipartUpload', () => client.send(new CompleteMultipartUploadCommand({ Bucket: 'exports', Key: 'x/file.csv', UploadId: 'upload-1', MultipartUpload: { Parts: [{ ETag: '"abc"', PartNumber: 1 }] } })),
    () => ours.completeMultipartUpload('exports', 'x/file.csv', 'upload-1', ['"abc"']));
  await pair('AbortMultipartUpload', () => client.send(new AbortMultipartUploadCommand({ Bucket: 'exports', Key: 'x/file.csv', UploadId: 'upload-1' })), () => ours.abortMultipartUpload('exports', 'x/file.csv', 'upload-1'));
  for (const [name, theirs, mine] of pairs) {
    const [t, m] = [meaning(theirs), meaning(mine)];
    // The SDK writes the completion's XML with whitespace of its own; the parts it names are the same.
    if (name === 'CompleteMultipartUpload') [t.body, m.body] = [t.body.replace(/>\s+</g, '><').replace(/^<\?xml[^>]*>/, ''), m.body.replace(/^<\?xml[^>]*>/, '')];
    expect({ name, ...m }).toEqual({ name, ...t });
    expect({ name, verifies: await signatureVerifies(mine, 's3') }).toEqual({ name, verifies: true });
    // The payload's hash is signed (S3 checks it against the body: a changed body is refused).
    expect(mine.headers['x-amz-content-sha256']).toBe(createHash('sha256').update(mine.body).digest('hex'));
  }
  // A key is encoded as the SDK encodes it: space, parentheses and plus escaped, the slashes kept.
  expect(new URL(pairs[0][2].url, 'http://x').pathname).toBe('/archive/log/2022-12-02/e1%20%28a%29%2Bb.ndjson');
  client.destroy();
});

test('answers: a taken key is a 412 the archive copier reads as written, an unknown bucket is named, a listing pages', async () => {
  const ours = lean();
  await ours.putObject('archive', 'log/a.ndjson', Buffer.from('a\n'), { ifNoneMatch: true, sha256Checksum: true });
  await expect(ours.putObject('archive', 'log/a.ndjson', Buffer.from('b\n'), { ifNoneMatch: true, sha256Checksum: true })).rejects.toMatchObject({ name: 'PreconditionFailed', $metadata: { httpStatusCode: 412 } });
  await expect(ours.putObject('archive', 'log/b.ndjson', Buffer.from('b\n'))).rejects.toMatchObject({ name: 'AccessDenied', $metadata: { httpStatusCode: 403 } });
  await expect(ours.getObjectText('no-such-bucket', 'k')).rejects.toThrow(/NoSuchBucket/);
  await ours.putObject('archive', 'log/c&d<e>.ndjson', Buffer.from('c\n'), { ifNoneMatch: true, sha256Checksum: true });
  const first = await ours.listObjects('archive', 'log/', 1);
  expect(first.truncated).toBe(true);
  const all = await ours.listObjects('archive', 'log/', 1000);
  // XML-escaped keys read back as they were written.
  expect(all.keys).toContain('log/c&d<e>.ndjson');
  expect(await ours.getObjectText('archive', 'log/c&d<e>.ndjson')).toBe('c\n');
});

test('a pre-signed link is the SDK presigner\'s, character for character, on AWS and on a local endpoint, and the local S3 serves it', async () => {
  const signingDate = new Date('2026-11-26T10:30:00Z');
  const disposition = 'attachment; filename="outcomes (1).csv"';
  const onAws = new S3Client({ region: REGION, credentials: { ...CREDENTIALS, sessionToken: 'session/token+1' } });
  const theirs = await getSignedUrl(onAws, new GetObjectCommand({ Bucket: 'holdback-exports-abc', Key: 'exports/job 1/outcomes.csv', ResponseContentDisposition: disposition }), { expiresIn: 3600, signingDate });
  const ours = await new S3Requests({ region: REGION, credentials: { ...CREDENTIALS, sessionToken: 'session/token+1' } }).presignGetObject('holdback-exports-abc', 'exports/job 1/outcomes.csv', 3600, { 'response-content-disposition': disposition }, signingDate);
  expect(ours).toBe(theirs);
  expect(ours.startsWith('https://holdback-exports-abc.s3.ap-south-1.amazonaws.com/exports/job%201/outcomes.csv?')).toBe(true);
  onAws.destroy();
  const local = sdk();
  await lean().putObject('exports', 'e/one.csv', Buffer.from('a,b\n1,2\n'), { contentType: 'text/csv' });
  const theirsLocal = await getSignedUrl(local, new GetObjectCommand({ Bucket: 'exports', Key: 'e/one.csv', ResponseContentDisposition: disposition }), { expiresIn: 600, signingDate });
  expect(await lean().presignGetObject('exports', 'e/one.csv', 600, { 'response-content-disposition': disposition }, signingDate)).toBe(theirsLocal);
  const link = await lean().presignGetObject('exports', 'e/one.csv', 600, { 'response-content-disposition': disposition });
  const served = await fetch(link);
  expect([served.status, await served.text()]).toEqual([200, 'a,b\n1,2\n']);
  local.destroy();
});

test('an export larger than a part is a multipart upload, read back whole with its SHA-256; a small one a single PutObject; a failed one leaves nothing', async () => {
  const store = new S3ExportStore(lean(), 'exports');
  const row = `${'x'.repeat(99)}\n`;
  const rows = Math.ceil((2.5 * PART_BYTES) / row.length);
  const before = seen.length;
  const openUploads = s3.s3.openUploads();
  const written = await store.write('exports/big.csv', 'text/csv; charset=utf-8', (async function* lines() { for (let i = 0; i < rows; i += 1) yield row; })());
  const text = row.repeat(rows);
  expect(written).toEqual({ bytes: text.length, sha256: createHash('sha256').update(text).digest('hex') });
  const calls = seen.slice(before).map((r) => `${r.method} ${[...new URL(r.url, 'http://x').searchParams.keys()].join('&')}`);
  expect(calls).toEqual(['POST uploads', 'PUT partNumber&uploadId', 'PUT partNumber&uploadId', 'PUT partNumber&uploadId', 'POST uploadId']);
  const client = sdk();
  const object = await client.send(new GetObjectCommand({ Bucket: 'exports', Key: 'exports/big.csv' }));
  expect(object.ContentType).toBe('text/csv; charset=utf-8');
  expect(createHash('sha256').update(Buffer.from(await object.Body!.transformToByteArray())).digest('hex')).toBe(written.sha256);
  // Written in steps: the parts as objects, combined into the file.
  await store.writePart('exports/stepped.csv', 0, (async function* part() { yield 'a\n'; })());
  await store.writePart('exports/stepped.csv', 1, (async function* part() { yield 'b\n'; })());
  const small = seen.length;
  expect(await store.combine('exports/stepped.csv', 'text/csv', 2)).toEqual({ bytes: 4, sha256: createHash('sha256').update('a\nb\n').digest('hex') });
  expect(seen.slice(small).map((r) => r.method)).toEqual(['GET', 'GET', 'PUT']);
  // A source that fails after the first part: the upload is aborted, no object appears.
  const failing = store.write('exports/failed.csv', 'text/csv', (async function* lines() {
    for (let i = 0; i < rows; i += 1) {
      if (i === Math.ceil(rows / 2)) throw new Error('the rows stopped');
      yield row;
    }
  })());
  await expect(failing).rejects.toThrow('the rows stopped');
  expect(s3.s3.keys('exports')).not.toContain('exports/failed.csv');
  expect(s3.s3.openUploads()).toBe(openUploads);
  client.destroy();
});

test('a throttled or failing S3 is asked again (the SDK\'s standard retries), a refusal is not', async () => {
  const scripted = await startScriptedServer(() => answer(200, ''));
  try {
    const ours = new S3Requests({ endpoint: scripted.url, region: REGION, credentials: CREDENTIALS });
    scripted.script(answer(503, '<Error><Code>SlowDown</Code><Message>Please reduce your request rate.</Message></Error>'), { kind: 'reset' });
    await ours.putObject('b', 'k', Buffer.from('x'));
    expect(scripted.requests).toHaveLength(3);
    scripted.script(answer(403, '<Error><Code>AccessDenied</Code><Message>Access Denied</Message></Error>'));
    await expect(ours.putObject('b', 'k', Buffer.from('x'))).rejects.toMatchObject({ name: 'AccessDenied', message: 'S3 PutObject k: AccessDenied: Access Denied' });
    expect(scripted.requests).toHaveLength(4);
  } finally {
    await scripted.close();
  }
});

describe('KMS', () => {
  const KEY = 'arn:aws:kms:ap-south-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab';
  const { publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  let kms: ScriptedServer;
  beforeAll(async () => {
    kms = await startScriptedServer((r) => {
      const target = String(r.headers['x-amz-target']);
      if (target === 'TrentService.GetPublicKey') return answer(200, { KeyId: KEY, KeySpec: 'ECC_NIST_P256', PublicKey: publicKey.export({ type: 'spki', format: 'der' }).toString('base64') });
      if (target === 'TrentService.DescribeKey') return answer(200, { KeyMetadata: { KeyId: KEY, CreationDate: 1669809600.123 } });
      if (target === 'TrentService.Sign') return answer(200, { KeyId: KEY, Signature: Buffer.from('der-signature').toString('base64'), SigningAlgorithm: 'ECDSA_SHA_256' });
      return answer(400, { __type: 'com.amazonaws.kms#NotFoundException', message: `no ${target}` });
    });
  });
  afterAll(() => kms.close());

  test('each operation goes out as the SDK client sends it (target, content type, JSON body), signed as the SDK signs; answers decode alike', async () => {
    const client = new KMSClient({ endpoint: kms.url, region: REGION, credentials: CREDENTIALS, maxAttempts: 1 });
    const ours = new KmsRequests({ endpoint: kms.url, region: REGION, credentials: CREDENTIALS });
    const digest = createHash('sha256').update('checkpoint').digest();
    const calls: [unknown, unknown][] = [];
    const theirs = [
      await client.send(new GetPublicKeyCommand({ KeyId: KEY })),
      await client.send(new DescribeKeyCommand({ KeyId: KEY })),
      await client.send(new SignCommand({ KeyId: KEY, Message: digest, MessageType: 'DIGEST', SigningAlgorithm: 'ECDSA_SHA_256' })),
    ];
    const mine = [
      await ours.call<{ PublicKey: string }>('GetPublicKey', { KeyId: KEY }),
      await ours.call<{ KeyMetadata: { CreationDate: number } }>('DescribeKey', { KeyId: KEY }),
      await ours.call<{ Signature: string }>('Sign', { KeyId: KEY, Message: digest.toString('base64'), MessageType: 'DIGEST', SigningAlgorithm: 'ECDSA_SHA_256' }),
    ];
    const [sdkRequests, ourRequests] = [kms.requests.slice(0, 3), kms.requests.slice(3, 6)];
    for (let i = 0; i < 3; i += 1) {
      const shape = (r: typeof sdkRequests[number]) => ({ method: r.method, path: r.path, target: r.headers['x-amz-target'], type: r.headers['content-type'], body: JSON.parse(r.body) as unknown });
      calls.push([shape(ourRequests[i]), shape(sdkRequests[i])]);
      const r = ourRequests[i];
      expect(await signatureVerifies({ method: r.method, url: r.path, headers: r.headers, body: Buffer.from(r.body) }, 'kms')).toBe(true);
    }
    for (const [a, b] of calls) expect(a).toEqual(b);
    // Blobs are base64 and times epoch seconds on the wire: decoded, the same values the SDK gives.
    const [key, described, signed] = mine as [{ PublicKey: string }, { KeyMetadata: { CreationDate: number } }, { Signature: string }];
    const [theirKey, theirDescribed, theirSigned] = theirs as unknown as [{ PublicKey: Uint8Array }, { KeyMetadata: { CreationDate: Date } }, { Signature: Uint8Array }];
    expect(Buffer.from(key.PublicKey, 'base64')).toEqual(Buffer.from(theirKey.PublicKey));
    expect(new Date(Math.round(described.KeyMetadata.CreationDate * 1000))).toEqual(theirDescribed.KeyMetadata.CreationDate);
    expect(Buffer.from(signed.Signature, 'base64')).toEqual(Buffer.from(theirSigned.Signature));
    await expect(ours.call('GetPublicKey', { KeyId: 'other' }).then(() => ours.call('DescribeKey', {}))).resolves.toBeDefined();
    kms.script(answer(400, { __type: 'com.amazonaws.kms#NotFoundException', message: 'Key arn:x does not exist' }));
    await expect(ours.call('GetPublicKey', { KeyId: 'arn:x' })).rejects.toMatchObject({ name: 'NotFoundException', message: 'KMS GetPublicKey: NotFoundException: Key arn:x does not exist', $metadata: { httpStatusCode: 400 } });
    client.destroy();
  });
});

describe('SQS', () => {
  let sqs: ScriptedServer;
  const md5 = (text: string) => createHash('md5').update(text).digest('hex');
  beforeAll(async () => {
    sqs = await startScriptedServer((r) => {
      const { Entries } = JSON.parse(r.body) as { Entries: { Id: string; MessageBody: string }[] };
      return answer(200, { Successful: Entries.map((e) => ({ Id: e.Id, MessageId: `m-${e.Id}`, MD5OfMessageBody: md5(e.MessageBody) })), Failed: [] });
    });
  });
  afterAll(() => sqs.close());

  test('SendMessageBatch goes out as the SDK client sends it, to the queue URL\'s own host, signed as the SDK signs; a body whose MD5 SQS answers wrong is refused', async () => {
    const queueUrl = `${sqs.url}/123456789012/holdback-jobs`;
    const client = new SQSClient({ region: REGION, credentials: CREDENTIALS, maxAttempts: 1 });
    // Neither is given an endpoint: each sends to the queue URL's host (the SDK's useQueueUrlAsEndpoint).
    const ours = new SqsRequests({ region: REGION, credentials: CREDENTIALS });
    const input = { QueueUrl: queueUrl, Entries: [{ Id: '0', MessageBody: '{"jobId":"j1","step":"export:0"}' }, { Id: '1', MessageBody: '{"jobId":"j1","step":"export:1"}' }] };
    const warn = jest.spyOn(console, 'warn').mockImplementation(() => undefined);
    await client.send(new SendMessageBatchCommand(input));
    warn.mockRestore();
    await ours.sendMessageBatch(input);
    const [theirs, mine] = sqs.requests.slice(-2);
    const shape = (r: typeof theirs) => ({ method: r.method, path: r.path, target: r.headers['x-amz-target'], type: r.headers['content-type'], mode: r.headers['x-amzn-query-mode'], body: JSON.parse(r.body) as unknown });
    expect(shape(mine)).toEqual(shape(theirs));
    expect(await signatureVerifies({ method: mine.method, url: mine.path, headers: mine.headers, body: Buffer.from(mine.body) }, 'sqs')).toBe(true);
    sqs.script(answer(200, { Successful: [{ Id: '0', MessageId: 'm-0', MD5OfMessageBody: md5('something else') }], Failed: [] }));
    await expect(ours.sendMessageBatch(input)).rejects.toThrow('Invalid MD5 checksum on messages: m-0');
    client.destroy();
  });
});

/** A scripted request as the SDK signer's check takes it. */
const asSeen = (r: { method: string; path: string; headers: IncomingHttpHeaders; body: string }): Seen => ({ method: r.method, url: r.path, headers: r.headers, body: Buffer.from(r.body) });
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('EventBridge, Scheduler and Secrets Manager', () => {
  let aws: ScriptedServer;
  beforeAll(async () => {
    aws = await startScriptedServer((r) => {
      const target = String(r.headers['x-amz-target'] ?? '');
      if (target === 'AWSEvents.PutEvents') return answer(200, { FailedEntryCount: 0, Entries: (JSON.parse(r.body) as { Entries: unknown[] }).Entries.map((_, i) => ({ EventId: `e${i}` })) });
      if (target === 'secretsmanager.GetSecretValue') return answer(200, { Name: 'holdback/gateway', SecretString: '{"clientId":"c1","clientSecret":"s1"}', VersionId: 'v1' });
      if (r.path.startsWith('/schedules/')) return answer(200, r.method === 'POST' ? { ScheduleArn: 'arn:aws:scheduler:ap-south-1:123456789012:schedule/g/n' } : {});
      return answer(400, { __type: 'UnknownOperationException', message: `no ${r.method} ${r.path}` });
    });
  });
  afterAll(() => aws.close());

  /** Method, path, query (an idempotency token's value aside), target, content type and JSON body of a scripted request. */
  const shape = (r: { method: string; path: string; headers: IncomingHttpHeaders; body: string }) => {
    const url = new URL(r.path, 'http://x');
    const body = r.body ? JSON.parse(r.body) as Record<string, unknown> : undefined;
    const token = url.searchParams.get('clientToken') ?? (body?.ClientToken as string | undefined);
    url.searchParams.delete('clientToken');
    if (body) delete body.ClientToken;
    return { method: r.method, path: url.pathname, query: [...url.searchParams].sort(), target: r.headers['x-amz-target'], type: r.headers['content-type'], body, token: token === undefined ? 'none' : UUID.test(token) ? 'a fresh uuid' : token };
  };

  test('PutEvents, CreateSchedule, DeleteSchedule and GetSecretValue go out as the SDK clients send them, signed as the SDK signs', async () => {
    const config = { endpoint: aws.url, region: REGION, credentials: CREDENTIALS };
    const events = new EventBridgeClient({ ...config, maxAttempts: 1 });
    const scheduler = new SchedulerClient({ ...config, maxAttempts: 1 });
    const secrets = new SecretsManagerClient({ ...config, maxAttempts: 1 });
    const entries = [
      { Source: 'holdback', DetailType: 'vendor.release_applied', Detail: '{"orderId":"o1","amount":"1.50"}', EventBusName: 'holdback-bus', Time: new Date('2026-11-26T10:30:00.250Z') },
      { Source: 'shop.orders', DetailType: 'order.paid', Detail: '{"orderId":"o2"}', EventBusName: 'holdback-bus' },
    ];
    const schedule = {
      Name: 'rel-o1-v1.1', GroupName: 'holdback-releases', ScheduleExpression: 'at(2026-11-27T10:31:00)', ScheduleExpressionTimezone: 'Asia/Kolkata',
      FlexibleTimeWindow: { Mode: 'OFF' as const }, ActionAfterCompletion: 'DELETE' as const, State: 'ENABLED' as const, Description: 'Holdback release of order o1, vendor v1',
      Target: { Arn: 'arn:aws:sqs:ap-south-1:123456789012:releases', RoleArn: 'arn:aws:iam::123456789012:role/s', Input: '{"orderId":"o1"}', RetryPolicy: { MaximumRetryAttempts: 185, MaximumEventAgeInSeconds: 86400 }, DeadLetterConfig: { Arn: 'arn:aws:sqs:ap-south-1:123456789012:dl' } },
    };
    const pairs: [string, () => Promise<unknown>, () => Promise<unknown>][] = [
      ['PutEvents', () => events.send(new PutEventsCommand({ Entries: entries })), () => new EventBridgeRequests(config).putEvents({ Entries: entries })],
      ['CreateSchedule', () => scheduler.send(new CreateScheduleCommand(schedule)), () => new SchedulerRequests(config).createSchedule(schedule)],
      ['DeleteSchedule', () => scheduler.send(new DeleteScheduleCommand({ Name: 'rel-o1-v1.1', GroupName: 'holdback-releases' })), () => new SchedulerRequests(config).deleteSchedule({ Name: 'rel-o1-v1.1', GroupName: 'holdback-releases' })],
    ];
    for (const [name, theirs, mine] of pairs) {
      await theirs();
      const sdkRequest = aws.requests.at(-1)!;
      await mine();
      const ours = aws.requests.at(-1)!;
      expect({ name, ...shape(ours) }).toEqual({ name, ...shape(sdkRequest) });
      expect({ name, verifies: await signatureVerifies(asSeen(ours), name === 'PutEvents' ? 'events' : 'scheduler') }).toEqual({ name, verifies: true });
    }
    // The time goes as epoch seconds with its milliseconds, as the SDK writes it; an entry without one has none.
    expect((JSON.parse(aws.requests.at(-6)!.body) as { Entries: { Time?: number }[] }).Entries.map((e) => e.Time)).toEqual([Date.parse('2026-11-26T10:30:00.250Z') / 1000, undefined]);
    // GetSecretValue: the SDK client's request beside the credentials source's (endpoint and region as the SDK reads them:
    // here every service's AWS_ENDPOINT_URL, as the bench's cold start sets it; test/adapters/gateway its own variable).
    await secrets.send(new GetSecretValueCommand({ SecretId: 'holdback/gateway' }));
    const sdkSecret = aws.requests.at(-1)!;
    const saved = { ...process.env };
    Object.assign(process.env, { AWS_ENDPOINT_URL: aws.url, AWS_REGION: REGION, AWS_ACCESS_KEY_ID: CREDENTIALS.accessKeyId, AWS_SECRET_ACCESS_KEY: CREDENTIALS.secretAccessKey });
    try {
      expect(await secretsManagerCredentials('holdback/gateway', new SecretScrubber(), 0)()).toEqual({ clientId: 'c1', clientSecret: 's1' });
    } finally {
      process.env = saved;
    }
    const ourSecret = aws.requests.at(-1)!;
    expect(shape(ourSecret)).toEqual(shape(sdkSecret));
    expect(await signatureVerifies(asSeen(ourSecret), 'secretsmanager')).toBe(true);
    for (const client of [events, scheduler, secrets]) client.destroy();
  });

  test('errors carry the service\'s code as name and its own message, as the SDK\'s errors do: a taken name is a ConflictException, a gone schedule a ResourceNotFoundException', async () => {
    const ours = new SchedulerRequests({ endpoint: aws.url, region: REGION, credentials: CREDENTIALS });
    aws.script(answer(409, { Message: 'Schedule rel-1 already exists.' }, { 'x-amzn-ErrorType': 'ConflictException:http://internal.amazon.com/coral/com.amazonaws.chronos/' }));
    await expect(ours.createSchedule({ Name: 'rel-1', ScheduleExpression: 'at(2026-11-27T10:31:00)', FlexibleTimeWindow: { Mode: 'OFF' }, Target: { Arn: 'a', RoleArn: 'r' } }))
      .rejects.toMatchObject({ name: 'ConflictException', message: 'Schedule rel-1 already exists.', $metadata: { httpStatusCode: 409 } });
    aws.script(answer(404, { Message: 'Schedule rel-1 does not exist.' }, { 'x-amzn-ErrorType': 'ResourceNotFoundException' }));
    await expect(ours.deleteSchedule({ Name: 'rel-1', GroupName: 'g' })).rejects.toMatchObject({ name: 'ResourceNotFoundException', $metadata: { httpStatusCode: 404 } });
    const events = new EventBridgeRequests({ endpoint: aws.url, region: REGION, credentials: CREDENTIALS });
    aws.script(answer(400, { __type: 'ValidationException', message: 'Total size of the entries in the request is over the limit.' }));
    await expect(events.putEvents({ Entries: [{ Source: 's', DetailType: 'd', Detail: '{}' }] })).rejects.toMatchObject({ name: 'ValidationException', message: 'Total size of the entries in the request is over the limit.' });
    // A throttled call (EventBridge answers it 400) is tried again, as the SDK's standard retries try it; the refusal above was not.
    const before = aws.requests.length;
    aws.script(answer(400, { __type: 'ThrottlingException', message: 'Rate exceeded' }), answer(400, { __type: 'ThrottlingException', message: 'Rate exceeded' }));
    await expect(events.putEvents({ Entries: [{ Source: 's', DetailType: 'd', Detail: '{}' }] })).resolves.toMatchObject({ FailedEntryCount: 0 });
    expect(aws.requests.length - before).toBe(3);
    // Scheduler answers a throttled call 429 ThrottlingException: tried AWS_MAX_ATTEMPTS (3) times in all, not three
    // times by the status and three again by the code.
    const throttled = aws.requests.length;
    const throttle = () => answer(429, { Message: 'Rate exceeded' }, { 'x-amzn-ErrorType': 'ThrottlingException' });
    aws.script(throttle(), throttle(), throttle());
    await expect(ours.deleteSchedule({ Name: 'rel-1', GroupName: 'g' })).rejects.toMatchObject({ name: 'ThrottlingException', $metadata: { httpStatusCode: 429 } });
    expect(aws.requests.length - throttled).toBe(3);
  });

  test('the bench\'s meter counts the calls of the senders without clients as it counted the clients\' (events, schedules and messages)', async () => {
    const config = { endpoint: aws.url, region: REGION, credentials: CREDENTIALS };
    const tally = new AwsCallTally();
    try {
      const events = new EventBridgeRequests(config);
      const scheduler = new SchedulerRequests(config);
      const sqs = new SqsRequests(config);
      meterAwsCalls(events, 'EventBridge');
      meterAwsCalls(scheduler, 'Scheduler');
      meterAwsCalls(sqs, 'SQS');
      await events.putEvents({ Entries: [{ Source: 's', DetailType: 'd', Detail: '{"a":1}' }, { Source: 's', DetailType: 'd', Detail: '{"a":2}' }] });
      await scheduler.createSchedule({ Name: 'rel-2', ScheduleExpression: 'at(2026-11-27T10:31:00)', FlexibleTimeWindow: { Mode: 'OFF' }, Target: { Arn: 'a', RoleArn: 'r' } });
      await scheduler.deleteSchedule({ Name: 'rel-2', GroupName: 'g' });
      aws.script(answer(200, { Successful: [{ Id: '0', MessageId: 'm0', MD5OfMessageBody: createHash('md5').update('{"x":1}').digest('hex') }], Failed: [] }));
      await sqs.sendMessageBatch({ QueueUrl: `${aws.url}/1/q`, Entries: [{ Id: '0', MessageBody: '{"x":1}' }] });
      const deadline = Date.now() + 10_000;
      while (tally.calls.size < 4 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
      const counted = Object.fromEntries([...tally.calls.entries()].map(([key, entry]) => [key, { calls: entry.calls, ...entry.units }]));
      expect(counted).toEqual({
        'EventBridge PutEvents': { calls: 1, requests: 1, entries: 2, eventChunks: 2 },
        'Scheduler CreateSchedule': { calls: 1, requests: 1 },
        'Scheduler DeleteSchedule': { calls: 1, requests: 1 },
        'SQS SendMessageBatch': { calls: 1, requests: 1, messages: 1, requestChunks: 1 },
      });
    } finally {
      tally.close();
    }
  });
});
