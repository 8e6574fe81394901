/** The Lambda context the local runtime passes to Holdback's handlers; middy only reads a few fields. */
import { randomUUID } from 'node:crypto';
import type { Context } from 'aws-lambda';
import { LOCAL_ACCOUNT_ID, LOCAL_REGION } from '../edge/scheduler';

export function lambdaContext(functionName: string): Context {
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:${LOCAL_REGION}:${LOCAL_ACCOUNT_ID}:function:${functionName}`,
    memoryLimitInMB: '1024',
    awsRequestId: randomUUID(),
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: 'local',
    getRemainingTimeInMillis: () => 900_000,
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}
