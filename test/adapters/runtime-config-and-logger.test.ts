/** The composition root's environment reading (fail fast, naming every variable) and the JSON-lines logger's redaction. */
import { readRuntimeConfig, buildDependencies, containerRatePerMinute, RuntimeConfigError } from '../../functions/composition-root';
import { RELEASE_QUEUE } from '../../functions/definitions/routing';
import { JsonLinesLogger } from '../../functions/adapters/logging/json-lines-logger';
import { awsEnvironment } from './aws-environment';

const SECRET = 'gw_secret_5b2e77d1';
const COMPLETE = awsEnvironment(SECRET);

describe('readRuntimeConfig', () => {
  test('a complete environment, with defaults for the optional variables', () => {
    const config = readRuntimeConfig(COMPLETE);
    expect(config).toMatchObject({
      aws: { region: 'ap-south-1', endpoint: null, dynamodbEndpoint: null, placeholderCredentials: false },
      tables: { orders: 'orders-t', config: 'config-t', rejected: 'rejected-t' },
      eventBus: 'holdback-bus',
      orderEventSource: 'marketplace.orders',
      gateway: { vendorBaseUrl: 'https://api.example.com', pgBaseUrl: 'https://api.example.com/pg', ratePerMinute: 600, timeoutMs: 5000, maxTries: 4, maxWaitMs: 20000 },
      scheduler: { groupName: 'holdback-releases' },
    });
  });

  test('names every missing or malformed variable at once, and never prints a value it read', () => {
    const env: Record<string, string | undefined> = {
      ...COMPLETE, HOLDBACK_EVENT_BUS: undefined, HOLDBACK_GATEWAY_CLIENT_SECRET: ' ', AWS_REGION: undefined,
      HOLDBACK_GATEWAY_RATE_PER_MINUTE: 'lots', HOLDBACK_RELEASE_QUEUE_ARN: undefined,
    };
    let error: unknown;
    try {
      readRuntimeConfig(env);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(RuntimeConfigError);
    const message = (error as Error).message;
    for (const name of ['HOLDBACK_EVENT_BUS', 'HOLDBACK_GATEWAY_CLIENT_SECRET', 'AWS_REGION', 'HOLDBACK_GATEWAY_RATE_PER_MINUTE', 'HOLDBACK_RELEASE_QUEUE_ARN']) {
      expect(message).toContain(name);
    }
    expect((error as RuntimeConfigError).problems).toHaveLength(5);
    expect(message).toContain('set it to an integer of at least 1');
  });

  test("each container's gateway limit is the deployment's rate divided by the release queue's maximum concurrency", () => {
    const defaults = readRuntimeConfig(COMPLETE);
    expect(defaults.scheduler.releaseQueueArn).toBe(COMPLETE.HOLDBACK_RELEASE_QUEUE_ARN);
    expect(defaults.releaseMaxConcurrency).toBe(RELEASE_QUEUE.maximumConcurrency);
    expect(containerRatePerMinute(defaults)).toBe(Math.floor(600 / RELEASE_QUEUE.maximumConcurrency));
    // 600 over 7 containers: 85 each, 595 in all, never above the gateway's 600.
    expect(containerRatePerMinute(readRuntimeConfig({ ...COMPLETE, HOLDBACK_RELEASE_MAX_CONCURRENCY: '7' }))).toBe(85);
    expect(() => readRuntimeConfig({ ...COMPLETE, HOLDBACK_RELEASE_MAX_CONCURRENCY: '1' }))
      .toThrow('HOLDBACK_RELEASE_MAX_CONCURRENCY is "1"; set it to an integer of at least 2');
    expect(() => readRuntimeConfig({ ...COMPLETE, HOLDBACK_GATEWAY_RATE_PER_MINUTE: '3', HOLDBACK_RELEASE_MAX_CONCURRENCY: '4' }))
      .toThrow('HOLDBACK_GATEWAY_RATE_PER_MINUTE (3) is below HOLDBACK_RELEASE_MAX_CONCURRENCY (4)');
  });

  test('a preview answers in one answer up to HOLDBACK_PREVIEW_INLINE_RELEASES open releases (default 20,000), a job above', () => {
    expect(buildDependencies(readRuntimeConfig(COMPLETE)).previewInlineReleases).toBe(20_000);
    expect(buildDependencies(readRuntimeConfig({ ...COMPLETE, HOLDBACK_PREVIEW_INLINE_RELEASES: '500' })).previewInlineReleases).toBe(500);
    expect(() => readRuntimeConfig({ ...COMPLETE, HOLDBACK_PREVIEW_INLINE_RELEASES: 'many' }))
      .toThrow('HOLDBACK_PREVIEW_INLINE_RELEASES is "many"; set it to an integer of at least 0 (default 20000)');
  });

  test('GET /audit/verify answers in one answer up to HOLDBACK_AUDIT_VERIFY_INLINE_RECORDS signed records (default 5,000), a job above', () => {
    expect(buildDependencies(readRuntimeConfig(COMPLETE)).auditVerifyInlineRecords).toBe(5_000);
    expect(buildDependencies(readRuntimeConfig({ ...COMPLETE, HOLDBACK_AUDIT_VERIFY_INLINE_RECORDS: '100' })).auditVerifyInlineRecords).toBe(100);
    expect(() => readRuntimeConfig({ ...COMPLETE, HOLDBACK_AUDIT_VERIFY_INLINE_RECORDS: 'lots' }))
      .toThrow('HOLDBACK_AUDIT_VERIFY_INLINE_RECORDS is "lots"; set it to an integer of at least 0 (default 5000)');
  });

  test('only the release function sends: every other function is built with a gateway that refuses, naming the queue', async () => {
    const deps = buildDependencies(readRuntimeConfig(COMPLETE), { sendsToGateway: false });
    await expect(deps.gateway.updateEligibility('order_1001', 'vendor_A', '2022-12-17 16:00:00'))
      .rejects.toThrow('only the release function sends to the gateway (its limit is shared by the release containers); enqueue the release command instead');
  });

  test('HOLDBACK_GATEWAY_PG_BASE_URL overrides the PG base, and a malformed one is named', () => {
    expect(readRuntimeConfig({ ...COMPLETE, HOLDBACK_GATEWAY_PG_BASE_URL: 'https://pg.example.com/pg' }).gateway.pgBaseUrl).toBe('https://pg.example.com/pg');
    expect(() => readRuntimeConfig({ ...COMPLETE, HOLDBACK_GATEWAY_PG_BASE_URL: 'pg.example.com' })).toThrow(/HOLDBACK_GATEWAY_PG_BASE_URL is "pg.example.com"; set it to an http\(s\) URL/);
  });

  test('a local endpoint without credentials in the environment gets placeholder credentials', () => {
    const config = readRuntimeConfig({ ...COMPLETE, AWS_ENDPOINT_URL: 'http://127.0.0.1:4566', HOLDBACK_GATEWAY_RATE_PER_MINUTE: '120' });
    expect(config.aws).toEqual({ region: 'ap-south-1', endpoint: 'http://127.0.0.1:4566', dynamodbEndpoint: 'http://127.0.0.1:4566', placeholderCredentials: true });
    expect(config.gateway.ratePerMinute).toBe(120);
  });

  test("DynamoDB alone can be pointed elsewhere with the SDK's own AWS_ENDPOINT_URL_DYNAMODB; a malformed endpoint is named", () => {
    const config = readRuntimeConfig({ ...COMPLETE, AWS_ENDPOINT_URL: 'http://127.0.0.1:4566', AWS_ENDPOINT_URL_DYNAMODB: 'http://127.0.0.1:4999' });
    expect(config.aws).toMatchObject({ endpoint: 'http://127.0.0.1:4566', dynamodbEndpoint: 'http://127.0.0.1:4999', placeholderCredentials: true });
    expect(() => readRuntimeConfig({ ...COMPLETE, AWS_ENDPOINT_URL_DYNAMODB: 'localhost:4999' }))
      .toThrow('AWS_ENDPOINT_URL_DYNAMODB is "localhost:4999"; set it to an http(s) URL');
  });

  test('buildDependencies wires every port, and its logger (Powertools, errors on stderr) redacts the gateway secret', () => {
    const lines: string[] = [];
    const deps = buildDependencies(readRuntimeConfig(COMPLETE));
    const capture = (chunk: unknown) => { lines.push(String(chunk)); return true; };
    const out = jest.spyOn(process.stdout, 'write').mockImplementation(capture);
    const err = jest.spyOn(process.stderr, 'write').mockImplementation(capture);
    try {
      deps.logger.error(`gateway call failed with ${SECRET}`, { detail: `header was ${SECRET}`, orderId: 'order_1001' });
    } finally {
      out.mockRestore();
      err.mockRestore();
    }
    const line = JSON.parse(lines.join('').trim()) as Record<string, unknown>;
    expect(line).toMatchObject({ level: 'ERROR', message: 'gateway call failed with [redacted]', detail: 'header was [redacted]', orderId: 'order_1001' });
    expect(Object.keys(deps).sort()).toEqual(['approvals', 'audit', 'auditArchive', 'auditCopy', 'auditKey', 'auditVerifyInlineRecords', 'clock', 'config', 'exportPartRows', 'exports', 'exposure', 'gateway', 'gatewayOrders', 'holds', 'jobQueue', 'jobs', 'logger', 'openOrderPolicies', 'orders', 'policies', 'policyImports', 'previewInlineReleases', 'previews', 'publisher', 'queue', 'reads', 'rejected', 'scheduler', 'secrets', 'settings']);
    expect(lines.join('')).toContain('[redacted]');
    expect(lines.join('')).not.toContain(SECRET);
  });
});

describe('JsonLinesLogger', () => {
  test('one JSON object per line; secrets redacted by value and by field name, in errors and nested fields', () => {
    const lines: string[] = [];
    const logger = new JsonLinesLogger({ secrets: [SECRET], base: { fn: 'release' }, write: (l) => lines.push(l), now: () => '2022-12-02T10:30:00.000Z' });
    const cause = new Error(`upstream said ${SECRET}`);
    const circular: Record<string, unknown> = { name: 'loop' };
    circular.self = circular;
    logger.info('sent', { orderId: 'order_1001', headers: { 'X-Client-Secret': 'anything', authorization: 'Bearer abc' } });
    logger.error('failed', { error: new Error(`bad ${SECRET}`, { cause }), circular, note: `x${SECRET}y` });
    expect(lines).toHaveLength(2);
    const [first, second] = lines.map((l) => JSON.parse(l));
    expect(first).toEqual({
      level: 'info', time: '2022-12-02T10:30:00.000Z', message: 'sent', fn: 'release', orderId: 'order_1001',
      headers: { 'X-Client-Secret': '[redacted]', authorization: '[redacted]' },
    });
    expect(second.error.message).toBe('bad [redacted]');
    expect(second.error.cause.message).toBe('upstream said [redacted]');
    expect(second.circular.self).toBe('[circular]');
    expect(second.note).toBe('x[redacted]y');
    expect(lines.join('\n')).not.toContain(SECRET);
    expect(lines.every((l) => !l.includes('\n'))).toBe(true);
  });
});
