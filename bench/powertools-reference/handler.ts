/**
 * The cold-start reference the function bundles are measured beside: a Lambda handler as Powertools for AWS Lambda's
 * examples write one (Logger and Metrics at module level, one DynamoDB client, a GetItem per invocation), bundled as
 * the stack bundles Holdback's functions. Never deployed; bench/function-bundles.ts bundles and imports it.
 */
import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { DynamoDBClient, GetItemCommand } from '@aws-sdk/client-dynamodb';
import { marshall, unmarshall } from '@aws-sdk/util-dynamodb';

const logger = new Logger({ serviceName: 'reference' });
const metrics = new Metrics({ namespace: 'reference', serviceName: 'reference' });
const client = new DynamoDBClient({});

export const handler = async (event: { id: string }): Promise<unknown> => {
  logger.info('get', { id: event.id });
  metrics.addMetric('gets', MetricUnit.Count, 1);
  const { Item } = await client.send(new GetItemCommand({ TableName: process.env.TABLE_NAME, Key: marshall({ pk: event.id }) }));
  metrics.publishStoredMetrics();
  return Item ? unmarshall(Item) : null;
};
