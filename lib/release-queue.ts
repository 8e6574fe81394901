/** The release queue, the one send path: due release commands in, the release function out, at a bounded concurrency. */
import { Duration, Validations } from 'aws-cdk-lib';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { RELEASE_QUEUE } from '../functions/definitions/routing';
import { DeadLetterQueue } from './dead-letter-queue';

/**
 * The release function always consumes the queue, so no deploy can pause releases: whether they run is whether the
 * gateway secret holds the credentials (the function checks it, see functions/handlers/release.ts), state kept in the
 * account that a redeploy never touches.
 */
export interface ReleaseQueueProps {
  /** The event source mapping's maximum concurrency: the number of release functions that send at once. */
  readonly maximumConcurrency: number;
}

export class ReleaseQueue extends Construct {
  readonly queue: sqs.Queue;
  readonly deadLetters: DeadLetterQueue;
  private readonly props: ReleaseQueueProps;

  constructor(scope: Construct, id: string, props: ReleaseQueueProps) {
    super(scope, id);
    this.props = props;
    this.deadLetters = new DeadLetterQueue(this, 'DeadLetters', {
      holds: `release commands the release function failed on ${RELEASE_QUEUE.maxReceiveCount} times, and messages that are not release commands`,
    });
    this.queue = new sqs.Queue(this, 'Queue', {
      visibilityTimeout: Duration.seconds(RELEASE_QUEUE.visibilityTimeoutSeconds),
      // Paused releases wait here; the sweep enqueues them again anyway, so nothing is lost when one expires.
      retentionPeriod: Duration.days(4),
      encryption: sqs.QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      deadLetterQueue: { queue: this.deadLetters.queue, maxReceiveCount: RELEASE_QUEUE.maxReceiveCount },
    });
  }

  /** The release function consumes the queue: batches, bounded concurrency, only failed records returned. */
  attach(release: lambda.IFunction): void {
    const source = new SqsEventSource(this.queue, {
      batchSize: RELEASE_QUEUE.batchSize,
      maxConcurrency: this.props.maximumConcurrency,
      reportBatchItemFailures: true,
    });
    release.addEventSource(source);
    Validations.of(release).acknowledge({
      id: 'Serverless-LambdaEventSourceMappingDestination',
      reason: "An SQS event source's failures go to the queue's redrive policy (its dead-letter queue, with an alarm); mapping destinations are for stream sources.",
    });
  }
}
