/**
 * A secret name that does not exist is refused at synth (bin/app.ts runs the preflight before building the stack),
 * naming the value and what to pass. Secrets Manager is a loopback HTTP server answering its JSON protocol as the
 * service does; the production SDK client talks to it.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { checkGatewaySecret } from '../../lib/deploy-preflight';

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
