/** An SQS queue that keeps deliveries which failed every retry, for an operator to inspect and re-drive. */
import { Duration, Validations } from 'aws-cdk-lib';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';

export interface DeadLetterQueueProps {
  /** What ends up here, for the queue's tag and the operator. */
  readonly holds: string;
}

export class DeadLetterQueue extends Construct {
  readonly queue: sqs.Queue;

  constructor(scope: Construct, id: string, props: DeadLetterQueueProps) {
    super(scope, id);
    this.queue = new sqs.Queue(this, 'Queue', {
      // The longest SQS keeps a message: an operator has two weeks to notice and re-drive.
      retentionPeriod: Duration.days(14),
      encryption: sqs.QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
    });
    for (const id of ['AwsSolutions-SQS3', 'Serverless-SQSRedrivePolicy']) {
      Validations.of(this.queue).acknowledge({
        id,
        reason: `This queue is itself a dead-letter queue (${props.holds}); a dead-letter queue of its own would add nothing.`,
      });
    }
  }
}
