/** The schedule group of one-time release schedules, the role Scheduler assumes to fire them, and their dead letters. */
import { Stack } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as scheduler from 'aws-cdk-lib/aws-scheduler';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { RELEASE_SCHEDULE_GROUP } from '../functions/definitions/routing';
import { DeadLetterQueue } from './queues/dead-letter-queue';
import { stackScopedName } from './stack-scoped-name';

/**
 * The functions create and delete schedules at run time (CreateSchedule with this group, role and dead-letter queue);
 * CloudFormation only creates the group, the role and the queue. Permissions stay inside the group, and the role may
 * only send to the release queue (and its own dead-letter queue), so a function that can write schedules cannot use
 * them to reach anything else. The group's name carries the stack's, so two stacks share an account.
 */
export class ReleaseScheduling extends Construct {
  readonly group: scheduler.ScheduleGroup;
  /** The execution role of every release schedule. */
  readonly role: iam.Role;
  /** The group's name as plain text (the construct's attribute is a token). */
  readonly groupName: string;
  /** Where Scheduler puts a release command it could not deliver after its retries. */
  readonly deadLetters: DeadLetterQueue;

  constructor(scope: Construct, id: string) {
    super(scope, id);
    // `<stack>-releases`; the local edge uses RELEASE_SCHEDULE_GROUP itself.
    this.groupName = stackScopedName(this, RELEASE_SCHEDULE_GROUP);
    this.group = new scheduler.ScheduleGroup(this, 'Group', { scheduleGroupName: this.groupName });
    this.deadLetters = new DeadLetterQueue(this, 'DeadLetters', {
      holds: 'release commands EventBridge Scheduler could not deliver to the release queue after its retries',
    });
    // Confused-deputy guard: only schedules of this account's release group may assume the role.
    this.role = new iam.Role(this, 'ExecutionRole', {
      description: 'Assumed by EventBridge Scheduler to send a release schedule\'s command to the Holdback release queue',
      assumedBy: new iam.ServicePrincipal('scheduler.amazonaws.com', {
        conditions: {
          StringEquals: {
            'aws:SourceAccount': Stack.of(this).account,
            'aws:SourceArn': this.group.scheduleGroupArn,
          },
        },
      }),
    });
  }

  /** Lets the schedules send their command to the release queue, and a failed delivery to their dead-letter queue. */
  allowSending(releaseQueue: sqs.IQueue): void {
    this.role.addToPolicy(new iam.PolicyStatement({
      actions: ['sqs:SendMessage'],
      resources: [releaseQueue.queueArn, this.deadLetters.queue.queueArn],
    }));
  }

  /** Lets a function create, update and delete schedules in the release group and hand them the execution role. */
  grantScheduling(grantee: iam.IGrantable): void {
    this.group.grantDeleteSchedules(grantee);
    this.group.grantWriteSchedules(grantee);
    grantee.grantPrincipal.addToPrincipalPolicy(new iam.PolicyStatement({
      actions: ['iam:PassRole'],
      resources: [this.role.roleArn],
      conditions: { StringEquals: { 'iam:PassedToService': 'scheduler.amazonaws.com' } },
    }));
  }

  /** Lets a function delete schedules in the release group, nothing else (no create, no role to pass). */
  grantCancelling(grantee: iam.IGrantable): void {
    this.group.grantDeleteSchedules(grantee);
  }

  /** The finding id of the schedule wildcard, for acknowledging it where it is granted. */
  get schedulesWildcardFinding(): string {
    return `AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:scheduler:<AWS::Region>:<AWS::AccountId>:schedule/${this.groupName}/*]`;
  }
}
