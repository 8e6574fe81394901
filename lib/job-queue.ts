/** The job queue (contract 6.3): the steps of bulk changes and exports in, the jobs function out, at a bounded concurrency. */
import { Duration, Validations } from 'aws-cdk-lib';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { JOB_QUEUE } from '../functions/definitions/routing';
import { DeadLetterQueue } from './dead-letter-queue';

export class JobQueue extends Construct {
  readonly queue: sqs.Queue;
  readonly deadLetters: DeadLetterQueue;

  constructor(scope: Construct, id: string) {
    super(scope, id);
    this.deadLetters = new DeadLetterQueue(this, 'DeadLetters', {
      holds: `job steps the jobs function failed on ${JOB_QUEUE.maxReceiveCount} times (their job ended failed, saying why)`,
    });
    this.queue = new sqs.Queue(this, 'Queue', {
      visibilityTimeout: Duration.seconds(JOB_QUEUE.visibilityTimeoutSeconds),
      retentionPeriod: Duration.days(4),
      encryption: sqs.QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      deadLetterQueue: { queue: this.deadLetters.queue, maxReceiveCount: JOB_QUEUE.maxReceiveCount },
    });
  }

  /** The jobs function consumes the queue: a step an invocation, at most JOB_QUEUE.maximumConcurrency at once. */
  attach(jobs: lambda.IFunction): void {
    jobs.addEventSource(new SqsEventSource(this.queue, {
      batchSize: JOB_QUEUE.batchSize,
      maxConcurrency: JOB_QUEUE.maximumConcurrency,
      reportBatchItemFailures: true,
    }));
    Validations.of(jobs).acknowledge({
      id: 'Serverless-LambdaEventSourceMappingDestination',
      reason: "An SQS event source's failures go to the queue's redrive policy (its dead-letter queue, with an alarm); mapping destinations are for stream sources.",
    });
  }
}
