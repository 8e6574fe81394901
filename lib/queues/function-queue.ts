/** An SQS queue one Lambda function consumes: SQS-managed encryption, SSL only, redrive to a dead-letter queue, bounded concurrency. */
import { Duration, Validations } from 'aws-cdk-lib';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { DeadLetterQueue } from './dead-letter-queue';

export interface FunctionQueueProps {
  /** What ends up in the dead-letter queue, for its tag and the operator. */
  readonly holds: string;
  /** The queue's visibility timeout, in seconds. */
  readonly visibilityTimeoutSeconds: number;
  /** How many times a message is received before it goes to the dead-letter queue. */
  readonly maxReceiveCount: number;
  /** The event source mapping's batch size. */
  readonly batchSize: number;
  /** The event source mapping's maximum concurrency: the number of functions that consume the queue at once. */
  readonly maximumConcurrency: number;
}

export class FunctionQueue extends Construct {
  readonly queue: sqs.Queue;
  readonly deadLetters: DeadLetterQueue;
  private readonly consumption: Pick<FunctionQueueProps, 'batchSize' | 'maximumConcurrency'>;

  constructor(scope: Construct, id: string, props: FunctionQueueProps) {
    super(scope, id);
    this.consumption = { batchSize: props.batchSize, maximumConcurrency: props.maximumConcurrency };
    this.deadLetters = new DeadLetterQueue(this, 'DeadLetters', { holds: props.holds });
    this.queue = new sqs.Queue(this, 'Queue', {
      visibilityTimeout: Duration.seconds(props.visibilityTimeoutSeconds),
      retentionPeriod: Duration.days(4),
      encryption: sqs.QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      deadLetterQueue: { queue: this.deadLetters.queue, maxReceiveCount: props.maxReceiveCount },
    });
  }

  /** The function consumes the queue: batches, bounded concurrency, only failed records returned. */
  attach(fn: lambda.IFunction): void {
    fn.addEventSource(new SqsEventSource(this.queue, {
      batchSize: this.consumption.batchSize,
      maxConcurrency: this.consumption.maximumConcurrency,
      reportBatchItemFailures: true,
    }));
    Validations.of(fn).acknowledge({
      id: 'Serverless-LambdaEventSourceMappingDestination',
      reason: "An SQS event source's failures go to the queue's redrive policy (its dead-letter queue, with an alarm); mapping destinations are for stream sources.",
    });
  }
}
