/**
 * The bundles that deploy are the ones tested: the CDK app synthesized with bundling on, and an order driven through
 * the local runtime whose order-events, release and sweep handlers are those bundles from the cloud assembly.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { synthesizeBundles, type FunctionBundle } from '../../bench/function-bundles';
import type { FunctionRole } from '../../lib/holdback-stack';
import { startLocal } from '../../local/runtime';
import { startHarness, vendorOf, type Harness } from './harness';
import { OPENAPI_DOCUMENT } from '../../functions/handlers/routes';
import { API_FUNCTIONS, routesServedBy } from '../../functions/definitions/api-routing';

let outdir: string;
let bundles: Record<FunctionRole, FunctionBundle>;

beforeAll(() => {
  outdir = mkdtempSync(join(tmpdir(), 'holdback-assembly-'));
  // With esbuild's metafile beside each bundle: the inputs each function's bundle took.
  bundles = synthesizeBundles(outdir, { metafile: true });
}, 120_000);

afterAll(() => {
  rmSync(outdir, { recursive: true, force: true });
});

describe('the deployed bundles', () => {
  let harness: Harness;

  beforeAll(async () => {
    // The bundles read the system clock (their composition root's), so the shared clock runs from the real now.
    harness = await startHarness({
      clockStart: new Date(), frozen: false,
      bundles: { orderEvents: bundles.orderEvents.file, release: bundles.release.file, sweep: bundles.sweep.file },
    });
  });

  afterAll(async () => {
    await harness?.close();
  });

  it('take an order.paid with an immediate policy through the queue to an applied eligibility PUT', async () => {
    await harness.createVendors([{ id: 'bundle-v1', scheduleOption: 1 }]);
    await harness.setPolicy('bundle-v1', { kind: 'immediate' });
    const paymentTime = await harness.createPaidOrder('bundle-order-1', [{ vendorId: 'bundle-v1', amount: 500 }]);
    await harness.send('order.paid', { orderId: 'bundle-order-1', transactionTime: paymentTime, vendors: [{ vendorId: 'bundle-v1', amount: 500 }] });

    // The release bundle takes the command off the queue (the edge's event source mapping) and sends the PUT.
    let order = (await harness.api('GET', '/orders/bundle-order-1')).body;
    for (let round = 0; round < 200 && vendorOf(order, 'bundle-v1').state !== 'APPLIED'; round += 1) {
      await harness.runtime.idle();
      await new Promise((resolve) => setImmediate(resolve));
      order = (await harness.api('GET', '/orders/bundle-order-1')).body;
    }
    const release = vendorOf(order, 'bundle-v1');
    expect(release.state).toBe('APPLIED');
    expect(release.appliedEligibility).not.toBeNull();
    expect(release.attempts.at(-1)?.status).toBe('OK');
    // The gateway applied exactly one eligibility PUT for it.
    expect((await harness.appliedAtGateway()).get('bundle-order-1/bundle-v1')).toBe(1);
    // Both functions ran in the containers, whose handlers are the bundles.
    expect(harness.runtime.lambdaUsage.get('release')?.invocations).toBeGreaterThanOrEqual(1);
    expect(harness.runtime.lambdaUsage.get('orderEvents')?.invocations).toBeGreaterThanOrEqual(1);
  });
});

describe('the pages bundle serves the web console and the OpenAPI document (built at deploy time into its asset; Lambda has no bundler)', () => {
  /** An API Gateway HTTP API (payload 2.0) GET, as the deployed route receives it. */
  const get = (path: string) => ({
    version: '2.0', routeKey: '$default', rawPath: path, rawQueryString: '', headers: { host: 'api.example.com' }, isBase64Encoded: false,
    requestContext: {
      accountId: '000000000000', apiId: 'api', domainName: 'api.example.com', domainPrefix: 'api', routeKey: '$default', stage: '$default',
      http: { method: 'GET', path, protocol: 'HTTP/1.1', sourceIp: '203.0.113.1', userAgent: 'test' }, requestId: `req-${path}`, time: '', timeEpoch: 0,
    },
  });
  const lambdaContext = { awsRequestId: 'req', functionName: 'holdback-api', getRemainingTimeInMillis: () => 29_000 };

  it('answers GET /console 200 with the app page, and its script and stylesheet 200, from the bundle alone', async () => {
    // Where the bundle runs, esbuild cannot be found: the page must come from the files built into the asset.
    expect(() => require.resolve('esbuild', { paths: [bundles.apiPages.directory] })).toThrow();
    expect(existsSync(join(bundles.apiPages.directory, 'console-app', 'index.html'))).toBe(true);
    const warn = jest.spyOn(console, 'warn').mockImplementation(() => undefined);
    try {
      const { handler } = require(bundles.apiPages.file) as { handler: (event: unknown, context: unknown) => Promise<{ statusCode: number; headers: Record<string, string>; body: string; isBase64Encoded?: boolean }> };
      const page = await handler(get('/console'), lambdaContext);
      expect([page.statusCode, page.headers['content-type']]).toEqual([200, 'text/html; charset=utf-8']);
      expect(page.body).toContain('<div id="app">');
      const assets = [...page.body.matchAll(/(?:src|href)="console\/([^"]+)"/g)].map((m) => m[1]);
      expect(assets).toEqual(expect.arrayContaining([expect.stringMatching(/^app\.[0-9a-f]{12}\.js$/), expect.stringMatching(/^app\.[0-9a-f]{12}\.css$/)]));
      for (const asset of assets) {
        const answer = await handler(get(`/console/${asset}`), lambdaContext);
        expect([asset, answer.statusCode, answer.isBase64Encoded]).toEqual([asset, 200, true]);
        expect(Buffer.from(answer.body, 'base64').length).toBeGreaterThan(1000);
      }
      const script = await handler(get(`/console/${assets.find((a) => a.endsWith('.js'))}`), lambdaContext);
      expect(Buffer.from(script.body, 'base64').toString('utf8')).toContain('Holdback');
    } finally {
      warn.mockRestore();
    }
  });

  it('answers GET /openapi.json with the document the routes make, byte for byte, and an unrouted request 404 or 405 from the route table', async () => {
    const { handler } = require(bundles.apiPages.file) as { handler: (event: unknown, context: unknown) => Promise<{ statusCode: number; headers: Record<string, string>; body: string }> };
    const document = await handler(get('/openapi.json'), lambdaContext);
    expect([document.statusCode, document.headers['content-type']]).toEqual([200, 'application/json; charset=utf-8']);
    expect(document.body).toBe(JSON.stringify(OPENAPI_DOCUMENT));
    const wrongMethod = await handler({ ...get('/settings'), requestContext: { ...get('/settings').requestContext, http: { ...get('/settings').requestContext.http, method: 'DELETE' } } }, lambdaContext);
    expect([wrongMethod.statusCode, wrongMethod.headers.allow]).toEqual([405, 'GET, PUT']);
    expect((await handler(get('/no-such-route'), lambdaContext)).statusCode).toBe(404);
  });
});

it('a bundle that exports no handler keeps the runtime from starting (the containers really load the bundle)', async () => {
  const empty = join(outdir, 'no-handler.js');
  writeFileSync(empty, 'exports.notAHandler = 1;\n');
  await expect(startLocal({ apiPort: 0, edgePort: 0, sandboxPort: 0, bundles: { release: empty } }))
    .rejects.toThrow(/exports no handler function/);
});

/**
 * The files whose code is in a bundle, from its metafile (index.meta.json beside it): the inputs of its index.js with
 * bytes in it (esbuild lists a file it read and then dropped whole with none).
 */
function inputsOf(bundle: FunctionBundle): string[] {
  const metafile = join(bundle.directory, 'index.meta.json');
  expect(existsSync(metafile)).toBe(true);
  const { outputs } = JSON.parse(readFileSync(metafile, 'utf8')) as { outputs: Record<string, { inputs: Record<string, { bytesInOutput: number }> }> };
  const index = Object.entries(outputs).find(([name]) => name.endsWith('index.js'));
  expect(index).toBeDefined();
  return Object.entries(index![1].inputs).filter(([, input]) => input.bytesInOutput > 0).map(([name]) => name);
}

/** The npm packages a bundle took. */
function packagesIn(bundle: FunctionBundle): Set<string> {
  const packages = new Set<string>();
  for (const input of inputsOf(bundle)) {
    const name = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(input)?.[1];
    if (name) packages.add(name);
  }
  return packages;
}

/**
 * Each function bundles only the SDK clients its composition (functions/composition/<function>.ts) uses; wiring a
 * function through a shared root again (every client in every bundle) fails here.
 */
describe('each function bundle carries only the AWS clients it uses', () => {
  const CLIENTS = ['client-dynamodb', 'client-scheduler', 'client-sqs', 'client-eventbridge', 'client-s3', 'client-kms', 'client-secrets-manager'] as const;
  const USES: Record<FunctionRole, (typeof CLIENTS)[number][]> = {
    // DynamoDB's is the one SDK client left: EventBridge, Scheduler, SQS, Secrets Manager, S3 and KMS are called
    // without theirs, signed by the SDK's SigV4 signer (adapters/aws-http/signed-request.ts and each service's
    // …-requests.ts: the test below), wherever a function publishes, plans, enqueues, reads the gateway's secret,
    // writes files or reads the audit key. The pages load no client.
    orderEvents: ['client-dynamodb'],
    release: ['client-dynamodb'],
    sweep: ['client-dynamodb'],
    webhooks: ['client-dynamodb'],
    jobs: ['client-dynamodb'],
    exportJobs: ['client-dynamodb'],
    api: ['client-dynamodb'],
    apiReads: ['client-dynamodb'],
    apiJobs: ['client-dynamodb'],
    apiAudit: ['client-dynamodb'],
    apiVendors: ['client-dynamodb'],
    apiPages: [],
  };

  it.each(Object.keys(USES) as FunctionRole[])('%s', (role) => {
    const packages = packagesIn(bundles[role]);
    const carried = CLIENTS.filter((client) => packages.has(`@aws-sdk/${client}`));
    expect(carried).toEqual(USES[role]);
    if (role === 'apiPages') {
      expect([...packages].filter((name) => name.startsWith('@aws-sdk/') || name.startsWith('@smithy/'))).toEqual([]);
      return;
    }
    // The SDK's default credential chain (SSO, STS, INI... and their nested clients) is replaced by the environment's
    // provider, all Lambda uses (functions/composition/lambda-credentials.ts).
    expect(packages.has('@aws-sdk/credential-provider-node')).toBe(false);
    expect(packages.has('@aws-sdk/nested-clients')).toBe(false);
    expect(packages.has('@aws-sdk/credential-provider-env')).toBe(true);
  });

  it('keep no dynamic import(): the SDK\'s lazy node:http and the invoke store\'s node:async_hooks load as require, so no first invocation starts Node\'s ES module loader', () => {
    for (const role of Object.keys(USES) as FunctionRole[]) {
      const code = readFileSync(bundles[role].file, 'utf8');
      expect([role, /\bimport\(/.test(code)]).toEqual([role, false]);
    }
  });

  it('carry no mnemonist (DynamoDB\'s endpoint-discovery cache is a bounded Map) and no event-stream codec, S3\'s functions neither', () => {
    for (const role of (Object.keys(USES) as FunctionRole[]).filter((r) => r !== 'apiPages')) {
      const inputs = inputsOf(bundles[role]);
      expect([role, inputs.some((input) => input.includes('node_modules/mnemonist/'))]).toEqual([role, false]);
      expect([role, inputs.includes('functions/composition/endpoint-cache-map.ts')]).toEqual([role, true]);
      const codec = inputs.some((input) => input.includes('@smithy/core/dist-es/submodules/event-streams/'));
      expect([role, codec, inputs.includes('functions/composition/no-event-streams.ts')]).toEqual([role, false, true]);
    }
  });

  it('carry no JavaScript SHA-256 or MD5 (no function builds S3\'s client): they hash with Node\'s crypto (the order driven above signs and checks SQS messages through them)', () => {
    const withS3 = (Object.keys(USES) as FunctionRole[]).filter((role) => USES[role].includes('client-s3'));
    expect(withS3).toEqual([]);
    for (const role of (Object.keys(USES) as FunctionRole[]).filter((r) => r !== 'apiPages')) {
      const inputs = inputsOf(bundles[role]);
      const jsHashes = inputs.filter((input) => /@smithy\/core\/dist-es\/submodules\/checksum\/(sha256\/Sha256Js|md5\/Md5Js)\.js$/.test(input)).length;
      expect([role, jsHashes > 0, inputs.includes('functions/composition/node-checksums.ts')]).toEqual([role, withS3.includes(role), !withS3.includes(role)]);
    }
  });

  it('call EventBridge, Scheduler, SQS and Secrets Manager through the senders their compositions use (…-requests.ts, the order driven above publishes, schedules and enqueues through them), and none carries the SDK\'s multi-region signer', () => {
    const SENDERS: Record<FunctionRole, string[]> = {
      orderEvents: ['scheduler', 'sqs'],
      release: ['eventbridge', 'scheduler', 'secrets', 'sqs'],
      sweep: ['sqs'],
      webhooks: ['eventbridge', 'scheduler', 'secrets'],
      jobs: ['scheduler', 'sqs'],
      exportJobs: ['sqs'],
      api: ['scheduler', 'secrets', 'sqs'],
      apiReads: [],
      apiJobs: ['sqs'],
      apiAudit: ['sqs'],
      apiVendors: ['secrets'],
      apiPages: [],
    };
    const FILES: Record<string, string> = {
      eventbridge: 'functions/adapters/eventbridge/eventbridge-requests.ts',
      scheduler: 'functions/adapters/scheduler/scheduler-requests.ts',
      secrets: 'functions/adapters/secrets/secrets-manager-credentials.ts',
      sqs: 'functions/adapters/sqs/sqs-requests.ts',
    };
    for (const role of Object.keys(SENDERS) as FunctionRole[]) {
      const inputs = inputsOf(bundles[role]);
      expect([role, Object.keys(FILES).filter((sender) => inputs.includes(FILES[sender]))]).toEqual([role, SENDERS[role]]);
      expect([role, inputs.includes('functions/adapters/aws-http/signed-request.ts')]).toEqual([role, role !== 'apiReads' && role !== 'apiPages']);
      expect([role, packagesIn(bundles[role]).has('@aws-sdk/signature-v4-multi-region')]).toEqual([role, false]);
    }
  });

  /**
   * Each of the API's functions carries the route files of its own routes alone (definitions/api-routing.ts), none
   * carries the route list of them all, the OpenAPI document's builder or its approval components (the document is built at synth time into the
   * pages' asset), only the pages the console's loader, only the vendors' function the policy CSV import (csv-parse); the other
   * functions carry no route but the webhooks' one (routes/gateway-webhook.ts) and no router.
   */
  it('each function carries only its own routes; none the route list, the OpenAPI document builder; only the pages the console, only the vendors\' function the CSV import', () => {
    const ROUTE_FILES: Record<(typeof API_FUNCTIONS)[number], string[]> = {
      api: ['approval-decisions', 'approvals', 'config-changes', 'releases'],
      apiReads: ['approvals', 'basics', 'health', 'outcomes'],
      apiJobs: ['jobs', 'previews'],
      apiAudit: ['audit'],
      apiVendors: ['imports', 'vendors'],
      apiPages: ['console', 'health', 'openapi'],
    };
    // The approval components are the document's alone: a route answering 202 for four eyes takes APPROVAL_REQUIRED from openapi-parts.ts.
    const NOWHERE = ['functions/handlers/routes/index.ts', 'functions/handlers/schema/openapi-document.ts', 'functions/handlers/api-functions.ts', 'functions/handlers/schema/approval-components.ts'];
    for (const role of API_FUNCTIONS) {
      const inputs = inputsOf(bundles[role]);
      expect(routesServedBy(role).length).toBeGreaterThan(0);
      const routeFiles = inputs.filter((input) => input.startsWith('functions/handlers/routes/') && !input.endsWith('/audiences.ts')).map((input) => input.replace(/^functions\/handlers\/routes\/(.*)\.ts$/, '$1')).sort();
      expect([role, routeFiles]).toEqual([role, ROUTE_FILES[role]]);
      expect([role, NOWHERE.filter((file) => inputs.includes(file))]).toEqual([role, []]);
      expect([role, inputs.includes('console/bundle.ts')]).toEqual([role, role === 'apiPages']);
      expect([role, inputs.includes('functions/application/config/import-policies.ts'), packagesIn(bundles[role]).has('csv-parse')]).toEqual([role, role === 'apiVendors', role === 'apiVendors']);
      expect([role, packagesIn(bundles[role]).has('@middy/http-router')]).toEqual([role, true]);
    }
    expect(existsSync(join(bundles.apiPages.directory, 'openapi.json'))).toBe(true);
    for (const role of ['orderEvents', 'release', 'sweep', 'webhooks', 'jobs', 'exportJobs'] as const) {
      const inputs = inputsOf(bundles[role]);
      const packages = packagesIn(bundles[role]);
      expect([role, [...NOWHERE, 'console/bundle.ts', 'functions/application/config/import-policies.ts'].filter((file) => inputs.includes(file)), ['@middy/http-router', 'csv-parse'].filter((name) => packages.has(name))]).toEqual([role, [], []]);
      const routeFiles = inputs.filter((input) => input.startsWith('functions/handlers/routes/'));
      expect([role, routeFiles]).toEqual([role, role === 'webhooks' ? ['functions/handlers/routes/gateway-webhook.ts'] : []]);
    }
  });

  it('the per-order functions carry no code of the API\'s and the jobs\' work, and only the release function the gateway\'s PUT', () => {
    for (const role of ['orderEvents', 'release', 'webhooks'] as const) {
      const inputs = inputsOf(bundles[role]);
      for (const absent of ['files/file-export-store.ts', 'audit-key/ed25519-audit-key.ts', 'dynamodb/job-repository.ts', 'dynamodb/approval-repository.ts', 'dynamodb/preview-repository.ts']) {
        expect([role, absent, inputs.includes(`functions/adapters/${absent}`)]).toEqual([role, absent, false]);
      }
      expect([role, inputs.includes('functions/adapters/gateway/http-eligibility-gateway.ts')]).toEqual([role, role === 'release']);
    }
    expect(inputsOf(bundles.orderEvents).some((input) => input.startsWith('functions/adapters/gateway/'))).toBe(false);
  });

  it('the order-events function keeps no metrics: it carries no Powertools Metrics, which the other per-order functions do', () => {
    // The events the metrics count (applied, failed, drift) come from sending and settling alone, never from an order
    // event (test/application/bounds-property.test.ts checks that for every event it tries; handlers/order-events.ts).
    const inputs = inputsOf(bundles.orderEvents);
    expect(inputs.includes('functions/domain/release/settle.ts')).toBe(false);
    expect(inputs.some((input) => input.includes('@aws-lambda-powertools/metrics/lib/esm/Metrics.js'))).toBe(false);
    for (const role of ['release', 'sweep', 'webhooks'] as const) {
      expect([role, inputsOf(bundles[role]).some((input) => input.includes('@aws-lambda-powertools/metrics/lib/esm/Metrics.js'))]).toEqual([role, true]);
    }
    // Nor do the API's functions: they emit nothing (routing.ts EMITTED_EVENTS), so they count nothing.
    for (const role of API_FUNCTIONS) {
      expect([role, inputsOf(bundles[role]).some((input) => input.includes('@aws-lambda-powertools/metrics/lib/esm/Metrics.js'))]).toEqual([role, false]);
    }
  });

  it('the export jobs and the audit log call S3, KMS and SQS signed by the SDK\'s SigV4 signer, without those clients, storage or presigner packages', () => {
    const s3Package = /^@aws-sdk\/(client-s3|client-kms|lib-storage|s3-request-presigner|middleware-sdk-s3|xml-builder|checksums|signature-v4-multi-region)$/;
    for (const role of ['exportJobs', 'apiAudit', 'sweep'] as const) {
      const inputs = inputsOf(bundles[role]);
      expect([role, [...packagesIn(bundles[role])].filter((name) => s3Package.test(name))]).toEqual([role, []]);
      expect([role, inputs.includes('functions/adapters/aws-http/signed-request.ts'), inputs.includes('functions/adapters/kms/kms-requests.ts')]).toEqual([role, true, true]);
      expect([role, inputs.includes('functions/adapters/s3/s3-requests.ts'), inputs.includes('functions/adapters/sqs/sqs-requests.ts')]).toEqual([role, role !== 'sweep', true]);
      expect([role, inputs.some((input) => input.includes('@smithy/signature-v4/'))]).toEqual([role, true]);
    }
  });

  it('the jobs function enqueues releases and job steps without the SDK\'s SQS client (sqs-requests.ts, signed by the SDK\'s SigV4 signer)', () => {
    const inputs = inputsOf(bundles.jobs);
    expect([packagesIn(bundles.jobs).has('@aws-sdk/client-sqs'), inputs.includes('functions/adapters/sqs/sqs-requests.ts'), inputs.includes('functions/adapters/sqs/sqs-release-queue.ts')]).toEqual([false, true, true]);
  });

  it('the release function carries no S3, KMS or storage code (export files, audit signing)', () => {
    const packages = packagesIn(bundles.release);
    for (const absent of ['@aws-sdk/client-s3', '@aws-sdk/lib-storage', '@aws-sdk/s3-request-presigner', '@aws-sdk/client-kms', 'csv-parse']) {
      expect(packages.has(absent)).toBe(false);
    }
  });
});
