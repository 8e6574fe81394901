/**
 * keepUserAgent (functions/composition/kept-user-agent.ts): a client writes the same user agent headers the SDK's own
 * middleware writes, but builds them once per set of inputs instead of at every call.
 */
import { DynamoDBClient, GetItemCommand } from '@aws-sdk/client-dynamodb';
import { keepUserAgent } from '../../functions/composition/kept-user-agent';

const credentials = { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY' };
type Headers = Record<string, string>;

/** A client whose requests' headers are captured, answered with an empty object, nothing sent. */
function capturingClient(config: Record<string, unknown> = {}): { client: DynamoDBClient; headers: Headers[]; made: () => number } {
  const headers: Headers[] = [];
  const requestHandler = {
    handle: async (request: { headers: Headers }) => {
      headers.push({ ...request.headers });
      const { Readable } = await import('node:stream');
      return { response: { statusCode: 200, headers: { 'content-type': 'application/x-amz-json-1.0' }, body: Readable.from([Buffer.from('{}')]) } };
    },
    updateHttpClientConfig: () => undefined,
    httpHandlerConfigs: () => ({}),
    destroy: () => undefined,
  };
  const client = new DynamoDBClient({ region: 'ap-south-1', credentials, endpoint: 'http://127.0.0.1:9', requestHandler: requestHandler as never, ...config });
  // Counts the SDK middleware's builds of the user agent: it asks for the default user agent each time it builds one.
  const clientConfig = client.config as unknown as { defaultUserAgentProvider: () => Promise<unknown> };
  const provider = clientConfig.defaultUserAgentProvider;
  let made = 0;
  clientConfig.defaultUserAgentProvider = () => {
    made += 1;
    return provider();
  };
  return { client, headers, made: () => made };
}

const userAgents = (headers: Headers[]) => headers.map((h) => [h['user-agent'], h['x-amz-user-agent']]);
const get = (id: string) => new GetItemCommand({ TableName: 't', Key: { pk: { S: id } } });

test('the headers are the SDK\'s own, built once for calls with the same inputs', async () => {
  const sdk = capturingClient({ customUserAgent: 'holdback/test', userAgentAppId: 'holdback-app' });
  const kept = capturingClient({ customUserAgent: 'holdback/test', userAgentAppId: 'holdback-app' });
  keepUserAgent(kept.client);
  for (const id of ['a', 'b', 'c']) {
    await sdk.client.send(get(id));
    await kept.client.send(get(id));
  }
  expect(userAgents(kept.headers)).toEqual(userAgents(sdk.headers));
  expect(kept.headers[0]['user-agent']).toMatch(/aws-sdk-js\/\S+ .* app\/holdback-app .*holdback\/test/);
  expect(kept.headers[0]['user-agent']).toMatch(/ m\/\S+/);
  // The SDK alone builds the user agent at every call; kept, once.
  expect(sdk.made()).toBe(3);
  expect(kept.made()).toBe(1);
  sdk.client.destroy();
  kept.client.destroy();
});

/** Marks calls on table `mapped` with a feature, as the SDK's document mapper or a waiter marks theirs. */
function markMapped(client: DynamoDBClient): void {
  client.middlewareStack.add((next, context) => async (args) => {
    if ((args.input as { TableName?: string }).TableName === 'mapped') {
      const sdk = context as { __aws_sdk_context?: { features?: Record<string, string> } };
      sdk.__aws_sdk_context = { ...sdk.__aws_sdk_context, features: { ...sdk.__aws_sdk_context?.features, DDB_MAPPER: 'd' } };
    }
    return next(args);
  }, { step: 'initialize', name: 'markMapped' });
}

test('a call with other inputs (a feature of its own) gets its own headers, as the SDK writes them', async () => {
  const sdk = capturingClient();
  const kept = capturingClient();
  keepUserAgent(kept.client);
  for (const { client } of [sdk, kept]) {
    markMapped(client);
    await client.send(get('a'));
    await client.send(new GetItemCommand({ TableName: 'mapped', Key: { pk: { S: 'm' } } }));
    await client.send(get('b'));
  }
  expect(userAgents(kept.headers)).toEqual(userAgents(sdk.headers));
  // The paginator's call names its feature in the user agent: different from a plain call's.
  expect(kept.headers[1]['user-agent']).not.toBe(kept.headers[0]['user-agent']);
  expect(kept.headers[2]['user-agent']).toBe(kept.headers[0]['user-agent']);
  expect(kept.made()).toBe(2);
  sdk.client.destroy();
  kept.client.destroy();
});

test('a client without the SDK\'s user agent configuration is left as it is', () => {
  const client = { middlewareStack: { add: jest.fn() }, config: { region: 'ap-south-1' } };
  keepUserAgent(client);
  expect(client.middlewareStack.add).not.toHaveBeenCalled();
});
