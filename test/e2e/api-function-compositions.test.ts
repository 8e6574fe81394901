/**
 * Every route through the function that serves it on AWS, built with THAT function's own composition
 * (functions/composition/<function>.ts) and the environment the stack gives it (lib/holdback-stack.ts): the local
 * default answers every route through the union of the API functions' adapters (composition-root.ts), so a route moved
 * to a function whose composition lacks a client, or a composition that loses one, would only fail on AWS, with a 500.
 * Here it fails first.
 *
 * Real parts: the embedded default (dynalite, the edge's SQS, Scheduler and EventBridge, the gateway sandbox) holds the
 * data and runs the jobs; the production handlers and SDK adapters talk to it. The edge serves no KMS and no Secrets
 * Manager, and the audit archive's S3 is a separate write-once local S3: an AWS front door on loopback sends each SDK
 * request where it belongs, and answers the KMS (GetPublicKey, DescribeKey) and Secrets Manager (GetSecretValue) calls
 * itself with a P-256 key and the sandbox's credentials, as adapters/kms-audit-key.test.ts and
 * adapters/gateway/gateway-credentials.test.ts speak those protocols.
 */
import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { createServer, request, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startHarness, type Harness } from './harness';
import { startLocalS3 } from '../../local/edge/s3';
import { localSchedulerRoleArn, LOCAL_REGION } from '../../local/edge/scheduler';
import { lambdaContext } from '../../local/lambda/lambda-context';
import { composeDependencies, type AwsAdapters } from '../../functions/composition/compose';
import { readRuntimeConfig, RUNTIME_ENV } from '../../functions/composition/runtime-config';
import { API_FUNCTIONS, routeEntryOf, routesServedBy, type RouteServer } from '../../functions/definitions/api-routing';
import { DEFAULT_EVENT_BUS, EXPORT_JOB_QUEUE, JOB_QUEUE, RELEASE_QUEUE, RELEASE_SCHEDULE_GROUP } from '../../functions/definitions/routing';
import { DEFAULT_TABLE_NAMES, TABLE_ENV, AUDIT_ARCHIVE_BUCKET_ENV, AUDIT_TABLE_ENV, DEFAULT_AUDIT_TABLE_NAME } from '../../functions/definitions/tables';
import { makeRouteHandler } from '../../functions/handlers/api-router';
import { collectStreamedBodies } from '../../functions/handlers/streamed-body';
import { API_ROUTES } from '../../functions/handlers/api';
import { API_READ_ROUTES } from '../../functions/handlers/api-reads';
import { API_JOB_ROUTES } from '../../functions/handlers/api-jobs';
import { API_AUDIT_ROUTES } from '../../functions/handlers/api-audit';
import { API_VENDOR_ROUTES } from '../../functions/handlers/api-vendors';
import { pagesDependencies, pagesRoutes } from '../../functions/handlers/api-pages';
import { makeWebhookHandler } from '../../functions/handlers/webhooks';
import { OPENAPI_DOCUMENT } from '../../functions/handlers/routes';
import { webhookSignature } from '../../functions/application/releases/handle-gateway-webhook';
import * as apiComposition from '../../functions/composition/api';
import * as readsComposition from '../../functions/composition/api-reads';
import * as jobsComposition from '../../functions/composition/api-jobs';
import * as auditComposition from '../../functions/composition/api-audit';
import * as vendorsComposition from '../../functions/composition/api-vendors';
import * as webhooksComposition from '../../functions/composition/webhooks';
import type { ApiEvent, ApiResult } from '../../functions/handlers/http';
import type { Logger } from '../../functions/application/ports';
import { Instant } from '../../functions/domain/instant';
import { App, type CfnElement } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import cdkJson from '../../cdk.json';
import { HoldbackStack } from '../../lib/holdback-stack';

const ARCHIVE = 'holdback-audit-archive';
const SECRET_ID = 'arn:aws:secretsmanager:us-east-1:000000000000:secret:holdback/gateway';
const KMS_KEY = 'arn:aws:kms:us-east-1:000000000000:key/1234abcd-12ab-34cd-56ef-1234567890ab';
const KMS_CREATED = '2022-11-30T12:00:00.000Z';
const kmsKey = generateKeyPairSync('ec', { namedCurve: 'P-256' });

const MAKER = 'arn:aws:sts::123456789012:assumed-role/HoldbackFinance/maker@example.com';
const CHECKER = 'arn:aws:sts::123456789012:assumed-role/HoldbackApprovers/checker@example.com';

let h: Harness;
let s3: Awaited<ReturnType<typeof startLocalS3>>;
let front: Server;
let frontUrl = '';
const savedEnv = { ...process.env };
/** Each function's errors, as its logger was told them (shown when an answer is a 5xx). */
const errors: string[] = [];

async function body(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** AWS's endpoints on one loopback address: KMS and Secrets Manager answered here, S3 to the archive, the rest to the edge. */
async function startFront(): Promise<void> {
  front = createServer((req, res) => {
    void body(req).then((raw) => {
      const target = String(req.headers['x-amz-target'] ?? '');
      const reply = (status: number, json: unknown) => {
        res.writeHead(status, { 'content-type': 'application/x-amz-json-1.1' });
        res.end(JSON.stringify(json));
      };
      if (target.startsWith('TrentService.')) {
        const { KeyId } = JSON.parse(raw.toString('utf8')) as { KeyId: string };
        if (KeyId !== KMS_KEY) return reply(400, { __type: 'NotFoundException', message: `no key ${KeyId}` });
        if (target === 'TrentService.GetPublicKey') {
          return reply(200, { KeyId, KeySpec: 'ECC_NIST_P256', KeyUsage: 'SIGN_VERIFY', PublicKey: kmsKey.publicKey.export({ type: 'spki', format: 'der' }).toString('base64'), SigningAlgorithms: ['ECDSA_SHA_256'] });
        }
        if (target === 'TrentService.DescribeKey') {
          return reply(200, { KeyMetadata: { KeyId, Arn: KeyId, CreationDate: Date.parse(KMS_CREATED) / 1000, KeySpec: 'ECC_NIST_P256', KeyUsage: 'SIGN_VERIFY', KeyState: 'Enabled' } });
        }
        // The API's functions only read the public key: a Sign here is a function doing what its role may not.
        return reply(400, { __type: 'AccessDeniedException', message: `${target} is not granted to the API's functions` });
      }
      if (target === 'secretsmanager.GetSecretValue') {
        const { SecretId } = JSON.parse(raw.toString('utf8')) as { SecretId: string };
        if (SecretId !== SECRET_ID) return reply(400, { __type: 'ResourceNotFoundException', message: `no secret ${SecretId}` });
        const { clientId, clientSecret } = h.runtime.sandbox.context.config;
        return reply(200, { ARN: SecretId, Name: 'holdback/gateway', SecretString: JSON.stringify({ clientId, clientSecret }), VersionId: 'v1' });
      }
      const upstream = new URL(!target && (req.url ?? '').startsWith(`/${ARCHIVE}`) ? s3.url : h.runtime.edge.url);
      const forwarded = request({ host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: { ...req.headers, host: upstream.host } }, (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      });
      forwarded.on('error', (error) => reply(502, { message: String(error) }));
      forwarded.end(raw);
    });
  });
  await new Promise<void>((resolve) => front.listen(0, '127.0.0.1', resolve));
  frontUrl = `http://127.0.0.1:${(front.address() as AddressInfo).port}`;
}

/** Each function's variables as the synthesized stack sets them (lib/holdback-stack.ts), by name: text or a token. */
let stackVariables: Record<RouteServer, Record<string, unknown>>;

function synthesizedVariables(): Record<RouteServer, Record<string, unknown>> {
  // The template only: esbuild skipped (the bundles are test/e2e/deployed-bundles.test.ts's).
  const app = new App({ context: { ...cdkJson.context, 'aws:cdk:bundling-stacks': [] } });
  const stack = new HoldbackStack(app, 'Holdback');
  const resources = Template.fromStack(stack).toJSON().Resources as Record<string, { Properties: { Environment?: { Variables?: Record<string, unknown> } } }>;
  const servers: RouteServer[] = [...API_FUNCTIONS, 'webhooks'];
  return Object.fromEntries(servers.map((fn) => {
    const id = stack.getLogicalId(stack.functions[fn].function.node.defaultChild as CfnElement);
    return [fn, resources[id].Properties.Environment?.Variables ?? {}];
  })) as Record<RouteServer, Record<string, unknown>>;
}

/**
 * The variables the stack gives `fn`, each pointed at its local counterpart (the edge, the sandbox, the front door): a
 * resource's token by its variable's name, text as the stack writes it. A variable the stack adds that has no local
 * value here fails the test, naming it; one the stack drops is not given.
 */
function stackEnvironment(fn: RouteServer): Record<string, string> {
  const { edge, sandbox } = h.runtime;
  const local: Record<string, string> = {
    [TABLE_ENV.orders]: DEFAULT_TABLE_NAMES.orders,
    [TABLE_ENV.config]: DEFAULT_TABLE_NAMES.config,
    [TABLE_ENV.rejected]: DEFAULT_TABLE_NAMES.rejected,
    [AUDIT_TABLE_ENV]: DEFAULT_AUDIT_TABLE_NAME,
    [RUNTIME_ENV.eventBus]: DEFAULT_EVENT_BUS,
    [RUNTIME_ENV.gatewayBaseUrl]: sandbox.url,
    [RUNTIME_ENV.gatewaySecretId]: SECRET_ID,
    [RUNTIME_ENV.releaseQueueUrl]: edge.queues.queueUrl(RELEASE_QUEUE.name),
    [RUNTIME_ENV.releaseQueueArn]: edge.queues.arn(RELEASE_QUEUE.name),
    [RUNTIME_ENV.schedulerRoleArn]: localSchedulerRoleArn(),
    // The group every function's schedules share: here the embedded default's, whose order-events function made them.
    [RUNTIME_ENV.scheduleGroup]: RELEASE_SCHEDULE_GROUP,
    [RUNTIME_ENV.scheduleDeadLetterArn]: edge.queues.arn(RELEASE_QUEUE.deadLetterName),
    [RUNTIME_ENV.jobQueueUrl]: edge.queues.queueUrl(JOB_QUEUE.name),
    [RUNTIME_ENV.exportJobQueueUrl]: edge.queues.queueUrl(EXPORT_JOB_QUEUE.name),
    [AUDIT_ARCHIVE_BUCKET_ENV]: ARCHIVE,
    [RUNTIME_ENV.auditKmsKeyId]: KMS_KEY,
  };
  const env: Record<string, string> = {
    // Lambda's own, and the local endpoints (DynamoDB straight to dynalite, as the embedded default does).
    [RUNTIME_ENV.region]: LOCAL_REGION,
    [RUNTIME_ENV.endpoint]: frontUrl,
    [RUNTIME_ENV.dynamodbEndpoint]: h.runtime.edge.dynamodbUrl,
  };
  for (const [name, value] of Object.entries(stackVariables[fn])) {
    const given = local[name] ?? (typeof value === 'string' ? value : undefined);
    if (given === undefined) throw new Error(`the stack gives the ${fn} function ${name} (${JSON.stringify(value)}): give it a local value in stackEnvironment`);
    env[name] = given;
  }
  return env;
}

const logger: Logger = {
  info: () => undefined,
  warn: () => undefined,
  error: (message: string, detail?: unknown) => { errors.push(`${message} ${detail instanceof Error ? detail.stack : JSON.stringify(detail)}`); },
} as Logger;

type Handler = (event: ApiEvent, context: ReturnType<typeof lambdaContext>) => Promise<ApiResult>;

/** Each function's handler as its module builds it, with its own composition and the stack's environment for it. */
function functionHandlers(): Record<RouteServer, Handler> {
  const deps = (fn: RouteServer, composition: { adapters: AwsAdapters }) => () => composeDependencies(readRuntimeConfig(stackEnvironment(fn)), composition.adapters, fn, {
    logger, clock: { now: () => Instant.withOffset(h.runtime.clock.nowMs(), 0) },
  });
  return {
    api: makeRouteHandler(API_ROUTES, deps('api', apiComposition)),
    apiReads: collectStreamedBodies(makeRouteHandler(API_READ_ROUTES, deps('apiReads', readsComposition)) as Handler),
    apiJobs: collectStreamedBodies(makeRouteHandler(API_JOB_ROUTES, deps('apiJobs', jobsComposition)) as Handler),
    apiAudit: collectStreamedBodies(makeRouteHandler(API_AUDIT_ROUTES, deps('apiAudit', auditComposition)) as Handler),
    apiVendors: makeRouteHandler(API_VENDOR_ROUTES, deps('apiVendors', vendorsComposition)),
    // On AWS the document is the file its bundling wrote beside the bundle; here the one the routes make.
    apiPages: makeRouteHandler(pagesRoutes(() => OPENAPI_DOCUMENT), pagesDependencies),
    webhooks: makeWebhookHandler(deps('webhooks', webhooksComposition)) as Handler,
  };
}

/** An HTTP API payload 2.0 event, signed by `principal` (API Gateway's IAM authorizer), or unsigned (the webhook). */
function apiEvent(method: string, target: string, opts: { body?: unknown; headers?: Record<string, string>; principal?: string | null } = {}): ApiEvent {
  const [rawPath, rawQueryString = ''] = target.split('?');
  const text = opts.body === undefined ? undefined : typeof opts.body === 'string' ? opts.body : JSON.stringify(opts.body);
  const now = new Date();
  const principal = opts.principal === undefined ? MAKER : opts.principal;
  return {
    version: '2.0', routeKey: '$default', rawPath, rawQueryString,
    headers: { 'content-type': 'application/json', ...opts.headers },
    ...(rawQueryString ? { queryStringParameters: Object.fromEntries(new URLSearchParams(rawQueryString)) } : {}),
    requestContext: {
      accountId: '123456789012', apiId: 'api', domainName: 'api.example.com', domainPrefix: 'api',
      http: { method, path: rawPath, protocol: 'HTTP/1.1', sourceIp: '203.0.113.9', userAgent: 'test' },
      requestId: randomUUID(), routeKey: '$default', stage: '$default', time: now.toUTCString(), timeEpoch: now.getTime(),
      ...(principal ? { authorizer: { iam: { accessKey: 'AKIA', accountId: '123456789012', callerId: 'AROA:x', cognitoIdentity: null, principalOrgId: null, userArn: principal, userId: 'AROA:x' } } } : {}),
    },
    ...(text === undefined ? {} : { body: text }),
    isBase64Encoded: false,
  } as unknown as ApiEvent;
}

interface Answer { status: number; body: any }

/** A request the route table sends to `fn`, answered by `fn`'s handler alone. */
async function send(handlers: Record<RouteServer, Handler>, fn: RouteServer, event: ApiEvent): Promise<Answer> {
  const entry = routeEntryOf(event.requestContext.http.method, event.rawPath);
  expect([event.rawPath, entry?.serves]).toEqual([event.rawPath, fn]);
  const before = errors.length;
  const result = await handlers[fn](event, lambdaContext(`holdback-${fn}`));
  const status = result.statusCode ?? 200;
  const text = typeof result.body === 'string' ? result.body : '';
  const type = String(result.headers?.['content-type'] ?? '');
  const parsed = type.includes('json') && !type.includes('ndjson') && text ? JSON.parse(text) : text;
  if (status >= 500) throw new Error(`${fn}: ${event.requestContext.http.method} ${event.rawPath} answered ${status} ${text.slice(0, 600)}\n${errors.slice(before).join('\n')}`);
  // A schedule, an enqueue or a publish that failed after the write is logged, not answered (the sweep re-drives it):
  // a port the composition lacks shows here.
  expect([`${fn}: ${event.requestContext.http.method} ${event.rawPath}`, errors.slice(before)]).toEqual([`${fn}: ${event.requestContext.http.method} ${event.rawPath}`, []]);
  return { status, body: parsed };
}

const WHO = { actor: 'maker@example.com', reason: 'route check' };
const ORDERS = { small: 'rt-small', apply: 'rt-apply', big1: 'rt-big-1', big2: 'rt-big-2', hook: 'rt-hook' };

beforeAll(async () => {
  stackVariables = synthesizedVariables();
  h = await startHarness();
  s3 = await startLocalS3({ [ARCHIVE]: { writeOnce: true } });
  await startFront();
  // Lambda's process environment: Powertools reads the secret with a client of its own (region, credentials, endpoint).
  Object.assign(process.env, { AWS_REGION: LOCAL_REGION, AWS_ACCESS_KEY_ID: 'test', AWS_SECRET_ACCESS_KEY: 'test', AWS_ENDPOINT_URL_SECRETS_MANAGER: frontUrl });
  await h.createVendors([{ id: 'v-routes', scheduleOption: 1 }, { id: 'v-apply', scheduleOption: 1 }, { id: 'v-big', scheduleOption: 1 }, { id: 'v-hold', scheduleOption: 1 }]);
  const pay = async (orderId: string, vendorId: string, amount: number) => {
    const at = await h.createPaidOrder(orderId, [{ vendorId, amount }]);
    await h.send('order.paid', { orderId, transactionTime: at, vendors: [{ vendorId, amount: String(amount) }] });
  };
  // v-routes' releases wait three days on a schedule (the edge's Scheduler): a manual release cancels it.
  await h.setPolicy('v-routes', { kind: 'after_payment', delay: 'P3D' });
  await pay(ORDERS.small, 'v-routes', 500);
  await pay(ORDERS.apply, 'v-apply', 700);
  await pay('rt-hold', 'v-hold', 300);
  await pay(ORDERS.big1, 'v-big', 60_000);
  await pay(ORDERS.big2, 'v-big', 70_000);
  // Paid at the gateway, not told to Holdback yet: the webhook through the webhooks function tells it.
  await h.createPaidOrder(ORDERS.hook, [{ vendorId: 'v-routes', amount: 250 }]);
}, 120_000);

afterAll(async () => {
  for (const name of Object.keys(process.env)) if (!(name in savedEnv)) delete process.env[name];
  Object.assign(process.env, savedEnv);
  await new Promise<void>((resolve) => front?.close(() => resolve()));
  await s3?.close();
  await h?.close();
});

test('every route answers through the function the route table gives it, built with that function\'s own composition as on AWS', async () => {
  const handlers = functionHandlers();
  const driven = new Map<RouteServer, Set<string>>();
  const call = async (fn: RouteServer, route: string, event: ApiEvent): Promise<Answer> => {
    const [method, path] = route.split(' ');
    expect(routesServedBy(fn).some((e) => e.method === method && e.path === path)).toBe(true);
    expect(routeEntryOf(event.requestContext.http.method, event.rawPath)).toMatchObject({ method, path, serves: fn });
    (driven.get(fn) ?? driven.set(fn, new Set()).get(fn)!).add(route);
    return send(handlers, fn, event);
  };
  const get = (fn: RouteServer, route: string, target: string, principal?: string) => call(fn, route, apiEvent('GET', target, { principal }));
  const post = (fn: RouteServer, route: string, target: string, body: unknown, principal?: string) => call(fn, route, apiEvent(route.split(' ')[0], target, { body, principal }));

  // ---- api: the changes (Scheduler, SQS, the gateway's reads with credentials from Secrets Manager, the stored work).
  expect((await post('api', 'PUT /settings', '/settings', { approvals: { manualRelease: { above: { INR: '50000' } } }, ...WHO })).status).toBe(200);
  // Previews are apiJobs' (a preview beyond one answer is a job: SQS), and PUT takes their previewId.
  expect(await post('apiJobs', 'POST /settings/preview', '/settings/preview', { deferByDays: 2 })).toMatchObject({ status: 200 });
  // The vendor list is apiVendors', with the gateway's answer for each vendor (credentials from Secrets Manager): an
  // error there is caught into the item.
  const vendors = await get('apiVendors', 'GET /vendors', '/vendors?checkGateway=true');
  expect(vendors.status).toBe(200);
  const routesVendor = (vendors.body.items as { vendorId: string; gateway?: { answer: string; message?: string } }[]).find((v) => v.vendorId === 'v-routes');
  expect(routesVendor?.gateway).toMatchObject({ answer: expect.not.stringMatching(/^error$/) });
  const preview = await post('apiJobs', 'POST /vendors/{vendorId}/policy/preview', '/vendors/v-apply/policy/preview', { scheduleOption: 1, release: { kind: 'after_payment', delay: 'P3D' }, applyTo: 'open_orders' });
  expect(preview).toMatchObject({ status: 200, body: { vendorId: 'v-apply', covered: 1 } });
  const applied = await post('api', 'PUT /vendors/{vendorId}/policy', '/vendors/v-apply/policy', {
    scheduleOption: 1, release: { kind: 'after_payment', delay: 'P3D' }, applyTo: 'open_orders', previewId: preview.body.previewId, expectedVersion: 0, ...WHO,
  });
  expect(applied).toMatchObject({ status: 200, body: { version: 1, job: { kind: 'policy_apply' } } });
  // A hold replans the vendor's open releases in a job on the job queue (SQS).
  const hold = await post('api', 'POST /vendors/{vendorId}/hold', '/vendors/v-hold/hold', WHO);
  expect(hold).toMatchObject({ status: 200, body: { held: true, job: { kind: 'vendor_hold' } } });
  await h.runtime.idle();
  const unhold = await post('api', 'POST /vendors/{vendorId}/unhold', '/vendors/v-hold/unhold', WHO);
  expect(unhold).toMatchObject({ status: 200, body: { held: false } });
  await h.runtime.idle();
  const scheduled = () => h.runtime.edge.scheduler.list().filter((schedule) => JSON.stringify(schedule).includes(ORDERS.small));
  expect(scheduled()).toHaveLength(1);
  const released = await post('api', 'POST /orders/{orderId}/vendors/{vendorId}/release', `/orders/${ORDERS.small}/vendors/v-routes/release`, WHO);
  expect(released.status).toBe(200);
  expect(scheduled()).toHaveLength(0);
  await h.runtime.idle();
  // A retry is for a release that failed: this one did not, so it is refused, saying so (not a 500).
  const retry = await post('api', 'POST /orders/{orderId}/vendors/{vendorId}/retry', `/orders/${ORDERS.small}/vendors/v-routes/retry`, WHO);
  expect(retry).toMatchObject({ status: 409, body: { error: { code: 'invalid_state' } } });
  const first = await post('api', 'POST /orders/{orderId}/vendors/{vendorId}/release', `/orders/${ORDERS.big1}/vendors/v-big/release`, WHO);
  const second = await post('api', 'POST /orders/{orderId}/vendors/{vendorId}/release', `/orders/${ORDERS.big2}/vendors/v-big/release`, WHO);
  expect([first.status, second.status]).toEqual([202, 202]);
  const approvalOf = (answer: Answer): string => answer.body.approval?.approvalId ?? answer.body.approvalId;
  const [approvalA, approvalB] = [approvalOf(first), approvalOf(second)];
  expect(await post('api', 'POST /approvals/{approvalId}/approve', `/approvals/${approvalA}/approve`, { actor: 'checker@example.com', reason: 'seen' }, CHECKER)).toMatchObject({ status: 200 });
  expect(await post('api', 'POST /approvals/{approvalId}/reject', `/approvals/${approvalB}/reject`, { actor: 'checker@example.com', reason: 'not yet' }, CHECKER)).toMatchObject({ status: 200 });
  await h.runtime.idle();
  const csv = 'vendorId,scheduleOption,release,delay,reason\nv-import-1,1,immediate,,trusted\n';
  // The policy CSV import is apiVendors' (csv-parse in its bundle alone).
  const importing = (query: string) => call('apiVendors', 'POST /policies/import', apiEvent('POST', `/policies/import?${query}`, { body: csv, headers: { 'content-type': 'text/csv' } }));
  expect(await importing('actor=maker%40example.com')).toMatchObject({ status: 200, body: { dryRun: true, rows: 1, valid: 1 } });
  expect(await importing('dryRun=false&actor=maker%40example.com')).toMatchObject({ status: 200, body: { applied: true } });

  // ---- apiReads: DynamoDB and the stored work alone.
  const reads: [string, string][] = [
    ['GET /settings', '/settings'], ['GET /settings/history', '/settings/history'],
    ['GET /vendors/{vendorId}/policy', '/vendors/v-apply/policy'], ['GET /vendors/{vendorId}/policy/history', '/vendors/v-apply/policy/history'],
    ['GET /vendors/{vendorId}/forecast', '/vendors/v-routes/forecast'], ['GET /orders/{orderId}', `/orders/${ORDERS.small}`],
    ['GET /outcomes', '/outcomes'], ['GET /forecast', '/forecast'], ['GET /alerts/held-settling', '/alerts/held-settling'],
    ['GET /reports/prediction-accuracy', '/reports/prediction-accuracy?from=2022-12-01&to=2022-12-31'], ['GET /rejected-events', '/rejected-events'],
    ['GET /whoami', '/whoami'], ['GET /approvals', '/approvals'], ['GET /approvals/{approvalId}', `/approvals/${approvalA}`],
  ];
  for (const [route, target] of reads) expect([route, (await get('apiReads', route, target)).status]).toEqual([route, 200]);
  expect((await get('apiReads', 'GET /vendors/{vendorId}/policy', '/vendors/v-apply/policy')).body).toMatchObject({ version: 1 });
  expect((await get('apiReads', 'GET /approvals/{approvalId}', `/approvals/${approvalA}`)).body).toMatchObject({ state: 'approved' });
  expect((await get('apiReads', 'GET /whoami', '/whoami')).body).toMatchObject({ principal: MAKER });
  expect(await post('apiReads', 'POST /predictions', '/predictions', { eligibility: '2022-12-05 10:00:00', scheduleOption: 1 })).toMatchObject({ status: 200, body: { settlementAt: expect.any(String) } });

  // ---- apiJobs: jobs and exports (SQS, the stored jobs).
  const exported = await post('apiJobs', 'POST /exports', '/exports', { kind: 'outcomes', format: 'csv' });
  expect(exported).toMatchObject({ status: 202, body: { job: { jobId: expect.any(String) } } });
  const jobId: string = exported.body.job.jobId;
  await h.runtime.idle();
  // Its steps went on the export job queue (the apiJobs function's SQS client) and the export-jobs function wrote the file.
  expect(await get('apiJobs', 'GET /jobs/{jobId}', `/jobs/${jobId}`)).toMatchObject({ status: 200, body: { jobId, state: 'succeeded' } });
  // The policy's job, started by the api function on the job queue, planned the open release again.
  expect(await get('apiJobs', 'GET /jobs/{jobId}', `/jobs/${applied.body.job.jobId}`)).toMatchObject({ status: 200, body: { state: 'succeeded', done: 1 } });
  expect(await get('apiJobs', 'GET /jobs', '/jobs')).toMatchObject({ status: 200 });
  expect(await get('apiJobs', 'GET /jobs/{jobId}', `/jobs/${jobId}`)).toMatchObject({ status: 200, body: { jobId } });
  expect(await get('apiJobs', 'GET /jobs/{jobId}', `/jobs/${hold.body.job.jobId}`)).toMatchObject({ status: 200, body: { state: 'succeeded' } });
  await h.runtime.idle();
  // On AWS the file is served by its pre-signed S3 link (the export-jobs function signs it), never by the API.
  expect(await get('apiJobs', 'GET /exports/{file}', '/exports/job_1.csv?token=x')).toMatchObject({ status: 404, body: { error: { code: 'not_found' } } });

  // ---- apiAudit: the audit log (the archive in S3, the key's public half in KMS, a verification job on SQS).
  expect(await get('apiAudit', 'GET /orders/{orderId}/timeline', `/orders/${ORDERS.small}/timeline`)).toMatchObject({ status: 200 });
  // Verified before any verification job ran: a job's checkpoint is signed by the embedded default's key file (the
  // local default's jobs run the job), which this function's KMS key list rightly does not hold.
  const verified = await get('apiAudit', 'GET /audit/verify', '/audit/verify');
  expect(verified).toMatchObject({ status: 200, body: { ok: true } });
  const auditExport = await get('apiAudit', 'GET /audit/export', '/audit/export');
  expect(auditExport.status).toBe(200);
  expect(String(auditExport.body).split('\n').filter(Boolean).length).toBeGreaterThan(1);
  const pem = kmsKey.publicKey.export({ type: 'spki', format: 'pem' }).toString();
  // The public half as KMS publishes it (GetPublicKey), and every key with its ARN and creation (DescribeKey).
  expect(await get('apiAudit', 'GET /audit/public-key', '/audit/public-key')).toMatchObject({ status: 200, body: pem });
  const keys = await get('apiAudit', 'GET /audit/public-keys', '/audit/public-keys');
  expect(keys.status).toBe(200);
  expect(JSON.stringify(keys.body)).toContain(KMS_KEY);
  expect(JSON.stringify(keys.body)).toContain(KMS_CREATED);
  expect(await get('apiAudit', 'GET /audit/checkpoints', '/audit/checkpoints')).toMatchObject({ status: 200 });
  // No checkpoint is written yet (the sweep writes them, and the clock stands still): the stream's records are pending.
  const proof = await get('apiAudit', 'GET /audit/proof', `/audit/proof?stream=${encodeURIComponent(`order#${ORDERS.small}`)}`);
  expect(proof).toMatchObject({ status: 200, body: { stream: `order#${ORDERS.small}`, checkpoint: null, pending: expect.arrayContaining([expect.objectContaining({ sequence: 1 })]) } });
  const verification = await post('apiAudit', 'POST /audit/verifications', '/audit/verifications', {});
  expect(verification).toMatchObject({ status: 202, body: { job: { kind: 'audit_verify', state: 'queued' } } });
  // A job just started (a verification, on the export job queue) is cancelled, or has ended already: either is an answer.
  const started = await post('apiAudit', 'POST /audit/verifications', '/audit/verifications', {});
  expect(started).toMatchObject({ status: 202, body: { job: { kind: 'audit_verify' } } });
  const cancel = await post('apiJobs', 'POST /jobs/{jobId}/cancel', `/jobs/${started.body.job.jobId}/cancel`, WHO);
  expect(cancel.status === 200 || cancel.body.error?.code === 'job_ended').toBe(true);
  await h.runtime.idle();
  expect(await get('apiJobs', 'GET /jobs/{jobId}', `/jobs/${verification.body.job.jobId}`)).toMatchObject({ status: 200, body: { state: 'succeeded' } });

  // ---- apiPages: no table, no client.
  expect(await get('apiPages', 'GET /health', '/health')).toMatchObject({ status: 200 });
  expect(await get('apiPages', 'GET /openapi.json', '/openapi.json')).toMatchObject({ status: 200, body: { openapi: expect.any(String) } });
  expect((await get('apiPages', 'GET /console', '/console')).status).toBe(200);
  expect(await get('apiPages', 'GET /console/{asset}', '/console/clock')).toMatchObject({ status: 200, body: { now: expect.any(String) } });
  // The catch-all: a request no route takes reaches the pages function, which answers 404 or 405 from the table.
  expect((await handlers.apiPages(apiEvent('GET', '/nowhere'), lambdaContext('holdback-apiPages'))).statusCode).toBe(404);

  // ---- webhooks: the gateway's signed webhook (Secrets Manager, the gateway's reads, Scheduler, EventBridge).
  const now = h.runtime.clock.now().setZone('Asia/Kolkata').toISO({ suppressMilliseconds: true })!;
  const raw = JSON.stringify({
    type: 'PAYMENT_SUCCESS_WEBHOOK', event_time: now,
    data: { order: { order_id: ORDERS.hook, order_amount: 250, order_currency: 'INR', order_splits: [{ vendor_id: 'v-routes', amount: 250 }] }, payment: { payment_status: 'SUCCESS', payment_time: now } },
  });
  const timestamp = String(h.runtime.clock.nowMs());
  const signature = webhookSignature(h.runtime.sandbox.context.config.clientSecret, timestamp, Buffer.from(raw));
  const hook = await call('webhooks', 'POST /webhooks/gateway', apiEvent('POST', '/webhooks/gateway', {
    body: raw, principal: null, headers: { 'x-webhook-timestamp': timestamp, 'x-webhook-signature': signature, 'x-webhook-version': '2023-08-01' },
  }));
  expect(hook.status).toBe(200);
  await h.runtime.idle();
  // The payment it republished reached the order-events function: Holdback knows the order now.
  expect((await get('apiReads', 'GET /orders/{orderId}', `/orders/${ORDERS.hook}`)).status).toBe(200);

  // Every route of the table was sent to its own function.
  for (const fn of [...API_FUNCTIONS, 'webhooks'] as RouteServer[]) {
    expect([fn, [...(driven.get(fn) ?? [])].sort()]).toEqual([fn, routesServedBy(fn).map((e) => `${e.method} ${e.path}`).sort()]);
  }
}, 240_000);
