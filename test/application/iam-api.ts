/**
 * The API as API Gateway's HTTP API with IAM authorisation serves it, on loopback: a front that checks each request's
 * SigV4 signature (test/sigv4-check.ts) and, when it holds, hands the handler a payload 2.0 event whose
 * `requestContext.authorizer.iam` names the principal of the access key, as API Gateway does; a bad signature is
 * API Gateway's 403. Clients sign with bin/signed-api.ts, as the CLI and the console's proxy do on AWS.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import type { Dependencies } from '../../functions/application/ports';
import { makeApiHandler } from '../../functions/handlers/api-functions';
import { createApiServer, type ApiServer } from '../../local/api-server';
import { SignedApi } from '../../bin/signed-api';
import { checkSignature } from '../sigv4-check';
import { fakeWorld, type FakeWorld } from '../fakes/dependencies';

const REGION = 'ap-south-1';
/** The header by which the front tells the handler wrapper whose key signed (a client's own copy is dropped). */
const VERIFIED = 'x-test-verified-access-key';

export interface IamPrincipal {
  accessKeyId: string;
  secretAccessKey: string;
  /** e.g. `arn:aws:sts::123456789012:assumed-role/HoldbackFinance/maker@example.com`. */
  userArn: string;
}

export interface IamApi {
  world: FakeWorld;
  url: string;
  /** A SigV4 client signing as `principal`. */
  as(principal: IamPrincipal): SignedApi;
  /** Requests the front refused for their signature. */
  refused: string[];
}

/** The `authorizer.iam` of payload 2.0 for a principal (fields as API Gateway documents them). */
export function iamAuthorizer(principal: IamPrincipal) {
  const account = principal.userArn.split(':')[4];
  return {
    iam: {
      accessKey: principal.accessKeyId,
      accountId: account,
      callerId: `AROAEXAMPLE:${principal.userArn.split('/').pop()}`,
      cognitoIdentity: null,
      principalOrgId: 'o-exampleorg',
      userArn: principal.userArn,
      userId: `AROAEXAMPLE:${principal.userArn.split('/').pop()}`,
    },
  };
}

/** Registers the hooks of a file: a fresh fake world before each test behind one IAM front and one handler. */
export function serveApiBehindIam(principals: IamPrincipal[], start = '2022-12-02T16:05:00+05:30'): IamApi {
  const live = {} as Dependencies;
  const api = { refused: [] } as unknown as IamApi;
  const byKey = new Map(principals.map((p) => [p.accessKeyId, p]));
  const secrets = new Map(principals.map((p) => [p.accessKeyId, p.secretAccessKey]));
  const handler = makeApiHandler(() => live);
  let inner: ApiServer;
  let front: Server;
  beforeAll(async () => {
    inner = await createApiServer({
      port: 0,
      handler: (async (event: APIGatewayProxyEventV2, context: unknown) => {
        const key = event.headers[VERIFIED];
        delete event.headers[VERIFIED];
        const principal = key ? byKey.get(key) : undefined;
        const withIdentity = principal ? { ...event, requestContext: { ...event.requestContext, authorizer: iamAuthorizer(principal) } } : event;
        return (handler as unknown as (e: unknown, c: unknown) => Promise<unknown>)(withIdentity, context);
      }) as unknown as Parameters<typeof createApiServer>[0]['handler'],
    });
    front = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = Buffer.concat(chunks);
        const checked = checkSignature(req, body, secrets, REGION);
        if (checked.problem !== null) {
          api.refused.push(checked.problem);
          res.writeHead(403, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ message: 'The request signature we calculated does not match the signature you provided.' }));
          return;
        }
        const headers: Record<string, string> = {};
        for (const [name, value] of Object.entries(req.headers)) {
          if (typeof value === 'string' && name !== 'host' && name !== 'content-length' && name !== VERIFIED) headers[name] = value;
        }
        headers[VERIFIED] = checked.accessKey;
        void fetch(`${inner.url}${req.url}`, { method: req.method, headers, body: body.length ? body : undefined }).then(async (answer) => {
          res.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'application/json' });
          res.end(Buffer.from(await answer.arrayBuffer()));
        }, () => {
          res.writeHead(502);
          res.end();
        });
      });
    });
    await new Promise<void>((resolve) => front.listen(0, '127.0.0.1', resolve));
    api.url = `http://127.0.0.1:${(front.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => front.close(() => resolve()));
    front.closeAllConnections();
    await inner.close();
  });
  beforeEach(() => {
    api.world = fakeWorld(start);
    Object.assign(live, api.world.deps);
    api.refused.length = 0;
  });
  api.as = (principal) => new SignedApi({ apiUrl: api.url, region: REGION, credentials: { accessKeyId: principal.accessKeyId, secretAccessKey: principal.secretAccessKey } });
  return api;
}
