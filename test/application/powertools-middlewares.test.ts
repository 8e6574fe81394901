/** The Lambda handlers run Powertools' own middlewares and batch processor: the request id on every log line, partial batch answers. */
import type { Context, SQSEvent } from 'aws-lambda';
import { LambdaLogger } from '../../functions/adapters/logging/powertools-logger';
import { SecretScrubber } from '../../functions/adapters/secrets/gateway-credentials';
import { makeJobsHandler } from '../../functions/handlers/jobs';
import { makeReleaseHandler } from '../../functions/handlers/release';
import { fakeWorld } from '../fakes/dependencies';

const context = (awsRequestId: string, functionName: string) => ({
  awsRequestId, functionName, functionVersion: '$LATEST', memoryLimitInMB: '512',
  invokedFunctionArn: `arn:aws:lambda:ap-south-1:000000000000:function:${functionName}`,
}) as unknown as Context;
const records = (...bodies: [string, string][]): SQSEvent => ({
  Records: bodies.map(([messageId, body]) => ({
    messageId, body, receiptHandle: messageId, attributes: { ApproximateReceiveCount: '1' }, messageAttributes: {}, md5OfBody: '',
    eventSource: 'aws:sqs', eventSourceARN: 'arn:aws:sqs:ap-south-1:000000000000:q', awsRegion: 'ap-south-1',
  })),
} as unknown as SQSEvent);

/** What the handler wrote (Powertools' JSON lines: errors on stderr, the rest on stdout), as objects. */
async function logged(run: () => Promise<unknown>): Promise<Record<string, unknown>[]> {
  const lines: string[] = [];
  const write = jest.spyOn(process.stdout, 'write').mockImplementation((chunk) => { lines.push(String(chunk)); return true; });
  const error = jest.spyOn(process.stderr, 'write').mockImplementation((chunk) => { lines.push(String(chunk)); return true; });
  try {
    await run();
  } finally {
    write.mockRestore();
    error.mockRestore();
  }
  return lines.join('').split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as Record<string, unknown>);
}

test('injectLambdaContext: each invocation\'s request id is on the lines the runtime\'s logger writes', async () => {
  const world = fakeWorld();
  const deps = { ...world.deps, logger: new LambdaLogger(new SecretScrubber()) };
  const handler = makeReleaseHandler(() => deps);
  const first = await logged(() => handler(records(['m-1', 'not json']), context('request-one', 'holdback-release')));
  const second = await logged(() => handler(records(['m-2', '{}']), context('request-two', 'holdback-release')));
  expect(first).toEqual([expect.objectContaining({ message: expect.stringMatching(/not a release command/), messageId: 'm-1', function_request_id: 'request-one', function_name: 'holdback-release' })]);
  expect(second).toEqual([expect.objectContaining({ messageId: 'm-2', function_request_id: 'request-two' })]);
});

test('BatchProcessor: when every record of a batch fails, each is answered as a batch item failure (not the whole invocation thrown)', async () => {
  const world = fakeWorld();
  const handler = makeJobsHandler(() => world.deps);
  const answer = await handler(records(['a', 'not json'], ['b', '{"jobId": 1}']), context('request-three', 'holdback-jobs'));
  expect(answer).toEqual({ batchItemFailures: [{ itemIdentifier: 'a' }, { itemIdentifier: 'b' }] });
});
