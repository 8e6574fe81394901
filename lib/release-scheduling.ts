/** The schedule group of one-time release schedules and the role Scheduler assumes to fire them. */
import { Stack } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import * as scheduler from 'aws-cdk-lib/aws-scheduler';
import { Construct } from 'constructs';
import { RELEASE_SCHEDULE_GROUP } from '../functions/routing';

/** What a function does with release schedules: the api only cancels the schedule of a release the gateway settled. */
export type ScheduleAccess = 'createAndDelete' | 'deleteOnly';

/**
 * The functions create and delete schedules at run time (CreateSchedule with this group and role); CloudFormation
 * only creates the group and the role. Permissions stay inside the group, and the role may invoke only the release
 * function, so a function that can write schedules cannot use them to reach anything else.
 */
export class ReleaseScheduling extends Construct {
  readonly group: scheduler.ScheduleGroup;
  /** The execution role of every release schedule. */
  readonly role: iam.Role;

  constructor(scope: Construct, id: string) {
    super(scope, id);
    this.group = new scheduler.ScheduleGroup(this, 'Group', { scheduleGroupName: RELEASE_SCHEDULE_GROUP });
    // Confused-deputy guard: only schedules of this account's release group may assume the role.
    this.role = new iam.Role(this, 'ExecutionRole', {
      description: 'Assumed by EventBridge Scheduler to invoke the Holdback release function from a release schedule',
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

  /** Lets the schedules invoke the release function: its unqualified ARN only, which is what the schedules target. */
  allowInvoking(release: lambda.IFunction): void {
    this.role.addToPolicy(new iam.PolicyStatement({
      actions: ['lambda:InvokeFunction'],
      resources: [release.functionArn],
    }));
  }

  /**
   * Lets a function delete schedules in the release group and, with `createAndDelete`, also create and update them
   * and hand them the execution role.
   */
  grantScheduling(grantee: iam.IGrantable, access: ScheduleAccess): void {
    this.group.grantDeleteSchedules(grantee);
    if (access === 'deleteOnly') return;
    this.group.grantWriteSchedules(grantee);
    grantee.grantPrincipal.addToPrincipalPolicy(new iam.PolicyStatement({
      actions: ['iam:PassRole'],
      resources: [this.role.roleArn],
      conditions: { StringEquals: { 'iam:PassedToService': 'scheduler.amazonaws.com' } },
    }));
  }

  /** The finding id of the schedule wildcard, for acknowledging it where it is granted. */
  get schedulesWildcardFinding(): string {
    return `AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:scheduler:<AWS::Region>:<AWS::AccountId>:schedule/${RELEASE_SCHEDULE_GROUP}/*]`;
  }
}
