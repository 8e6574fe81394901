/**
 * A secret name that does not exist, or a concurrency budget above the account's Lambda limit, is refused at synth
 * (bin/app.ts runs the preflight before building the stack), naming the value and what to pass. Secrets Manager and
 * Lambda are loopback HTTP servers answering their protocols as the services do; the production SDK clients talk to them.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { LambdaClient } from '@aws-sdk/client-lambda';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { App } from 'aws-cdk-lib';
import { checkGatewaySecret, readAccountConcurrencyLimit } from '../../lib/deploy-preflight';
import { CONTEXT_KEYS, holdbackPropsFromContext } from '../../lib/holdback-context';

const existing = new Set(['holdback/gateway']);
const calls: string[] = [];
let server: Server;
let endpoint: string;

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => { body += chunk.toString(); });
    req.on('end', () => {
      calls.push(`${String(req.headers['x-amz-target'])} ${body}`);
      const { SecretId } = JSON.parse(body) as { SecretId: string };
      res.setHeader('content-type', 'application/x-amz-json-1.1');
      if (req.headers.authorization?.includes('Credential=denied/')) {
        res.statusCode = 400;
        return res.end(JSON.stringify({ __type: 'AccessDeniedException', message: 'not authorized to perform: secretsmanager:DescribeSecret' }));
      }
      if (existing.has(SecretId)) return res.end(JSON.stringify({ ARN: `arn:aws:secretsmanager:ap-south-1:123456789012:secret:${SecretId}-AbCdEf`, Name: SecretId }));
      res.statusCode = 400;
      res.end(JSON.stringify({ __type: 'ResourceNotFoundException', message: "Secrets Manager can't find the specified secret." }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

/** Lambda's GetAccountSettings (REST JSON, GET /2016-08-19/account-settings): the account's limit by access key. */
const limits: Record<string, number> = { newAccount: 10, standard: 1000, raised: 150 };
const lambdaCalls: string[] = [];
let lambdaServer: Server;
let lambdaEndpoint: string;
beforeAll(async () => {
  lambdaServer = createServer((req, res) => {
    lambdaCalls.push(`${req.method} ${req.url}`);
    const accessKey = /Credential=([^/]+)\//.exec(req.headers.authorization ?? '')?.[1] ?? '';
    res.setHeader('content-type', 'application/json');
    if (req.method !== 'GET' || req.url !== '/2016-08-19/account-settings' || !(accessKey in limits)) {
      res.statusCode = 403;
      res.setHeader('x-amzn-errortype', 'AccessDeniedException');
      return res.end(JSON.stringify({ Message: 'not authorized to perform: lambda:GetAccountSettings' }));
    }
    res.end(JSON.stringify({
      AccountLimit: { TotalCodeSize: 80530636800, CodeSizeUnzipped: 262144000, CodeSizeZipped: 52428800, ConcurrentExecutions: limits[accessKey], UnreservedConcurrentExecutions: limits[accessKey] },
      AccountUsage: { TotalCodeSize: 0, FunctionCount: 0 },
    }));
  });
  await new Promise<void>((resolve) => lambdaServer.listen(0, '127.0.0.1', resolve));
  lambdaEndpoint = `http://127.0.0.1:${(lambdaServer.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => lambdaServer.close(() => resolve())));

const client = (accessKeyId = 'deployer') => new SecretsManagerClient({ endpoint, region: 'ap-south-1', credentials: { accessKeyId, secretAccessKey: 'x' }, maxAttempts: 1 });

test('an existing secret passes', async () => {
  await expect(checkGatewaySecret('holdback/gateway', 'ap-south-1', client())).resolves.toEqual({ checked: true });
  expect(calls.at(-1)).toBe('secretsmanager.DescribeSecret {"SecretId":"holdback/gateway"}');
});

test('a secret name that does not exist is refused, naming it, the region and what to pass', async () => {
  const refused = checkGatewaySecret('holdback/gatewya', 'ap-south-1', client());
  await expect(refused).rejects.toThrow('context holdback:gatewaySecretName is "holdback/gatewya", but no secret of that name exists in ap-south-1');
  await expect(checkGatewaySecret('holdback/gatewya', 'ap-south-1', client())).rejects.toThrow(/aws secretsmanager create-secret --region ap-south-1 --name holdback\/gatewya .*or leave the key unset/);
});

test('credentials that may not ask are told, not taken for a missing secret', async () => {
  const outcome = await checkGatewaySecret('holdback/gateway', 'ap-south-1', client('denied'));
  expect(outcome).toEqual({ checked: false, why: expect.stringContaining('could not check that secret "holdback/gateway" exists in ap-south-1 (AccessDeniedException)') });
});

describe("the account's Lambda concurrency limit, read at synth", () => {
  const lambda = (accessKeyId: string) => new LambdaClient({ endpoint: lambdaEndpoint, region: 'ap-south-1', credentials: { accessKeyId, secretAccessKey: 'x' }, maxAttempts: 1 });
  const nodeWith = (context: Record<string, unknown>) => new App({ context }).node;
  /** What bin/app.ts does: read the limit, then build the stack's settings against it. */
  const synth = async (accessKey: string, context: Record<string, unknown> = {}) => {
    const node = nodeWith(context);
    const outcome = await readAccountConcurrencyLimit(node, 'ap-south-1', lambda(accessKey));
    return { outcome, props: () => holdbackPropsFromContext(node, outcome.limit) };
  };

  test("a new account's limit of 10 refuses the default budget, naming the limit, where it was read and what to pass", async () => {
    const { outcome, props } = await synth('newAccount');
    expect(lambdaCalls.at(-1)).toBe('GET /2016-08-19/account-settings');
    expect(outcome).toEqual({ limit: { value: 10, from: 'read from the account: Lambda GetAccountSettings in ap-south-1' } });
    expect(props).toThrow(/reserves 100 concurrent executions, and Lambda keeps 100 unreserved, but the account's limit is 10 \(read from the account: Lambda GetAccountSettings in ap-south-1\)\. Ask AWS to raise the quota, or deploy with -c holdback:concurrencyBudget=none/);
  });

  test('the account answers over the flag: a flag of 1000 on an account of 10 is noted and still refused', async () => {
    const { outcome, props } = await synth('newAccount', { [CONTEXT_KEYS.accountConcurrencyLimit]: '1000' });
    expect(outcome.note).toBe("holdback:accountConcurrencyLimit=1000 is not used: the account's Lambda concurrency limit in ap-south-1 is 10");
    expect(props).toThrow(/the account's limit is 10 /);
  });

  test('a limit with some room names the most a budget may reserve; a budget that fits passes', async () => {
    await expect(synth('raised').then(({ props }) => props())).rejects.toThrow(/limit is 150 .*send a budget reserving at most 50 in all/);
    // The API's five functions each named (their defaults, 20 in all, would not fit beside the others' here).
    const fitting = await synth('raised', { [CONTEXT_KEYS.concurrencyBudget]: '{"orderEvents":10,"release":10,"sweep":2,"api":4,"apiReads":1,"apiJobs":1,"apiAudit":1,"apiVendors":1,"apiPages":2,"webhooks":10}' });
    expect(fitting.props().concurrencyBudget).toEqual({ orderEvents: 10, release: 10, sweep: 2, api: 4, apiReads: 1, apiJobs: 1, apiAudit: 1, apiVendors: 1, apiPages: 2, webhooks: 10, jobs: 4, exportJobs: 4 });
    expect((await synth('standard')).props().concurrencyBudget).toEqual(expect.objectContaining({ orderEvents: 50, webhooks: 10 }));
  });

  test('a budget of none reserves nothing, so the account is not asked', async () => {
    const before = lambdaCalls.length;
    const { outcome, props } = await synth('newAccount', { [CONTEXT_KEYS.concurrencyBudget]: 'none' });
    expect([outcome, lambdaCalls.length, props().concurrencyBudget]).toEqual([{}, before, null]);
  });

  test('credentials that may not ask fall back to the documented flag (an offline synth), and say so', async () => {
    const { outcome, props } = await synth('denied', { [CONTEXT_KEYS.accountConcurrencyLimit]: '10' });
    expect(outcome).toEqual({ note: "could not read the account's Lambda concurrency limit in ap-south-1 (AccessDeniedException); the budget is checked against holdback:accountConcurrencyLimit=10" });
    expect(props).toThrow(/the account's limit is 10 \(holdback:accountConcurrencyLimit; read it with `aws lambda get-account-settings`\)/);
    const unflagged = await synth('denied');
    expect(unflagged.outcome.note).toMatch(/checked against 1000, the standard quota \(pass -c holdback:accountConcurrencyLimit=<limit> for another\)/);
    expect(unflagged.props().concurrencyBudget).not.toBeNull();
  });
});
