/** The periodic sweep: a Scheduler schedule (SWEEP_SCHEDULE in routing.ts) that invokes the sweep function. */
import { type CfnElement, Duration, Stack, Validations } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import * as scheduler from 'aws-cdk-lib/aws-scheduler';
import { LambdaInvoke } from 'aws-cdk-lib/aws-scheduler-targets';
import { Construct } from 'constructs';
import { SWEEP_SCHEDULE } from '../functions/definitions/routing';
import { stackScopedName } from './stack-scoped-name';

export interface SweepScheduleProps {
  readonly sweep: lambda.IFunction;
}

/**
 * The schedule lives in the default group, out of reach of the functions, whose delete permission covers the
 * release group only. No retries: the next sweep, a minute later, is the retry.
 */
export class SweepSchedule extends Construct {
  readonly schedule: scheduler.Schedule;

  constructor(scope: Construct, id: string, props: SweepScheduleProps) {
    super(scope, id);
    const stack = Stack.of(this);
    const group = scheduler.ScheduleGroup.fromDefaultScheduleGroup(this, 'DefaultGroup');
    const role = new iam.Role(this, 'ExecutionRole', {
      description: 'Assumed by EventBridge Scheduler to invoke the Holdback sweep function every minute',
      assumedBy: new iam.ServicePrincipal('scheduler.amazonaws.com', {
        conditions: { StringEquals: { 'aws:SourceAccount': stack.account, 'aws:SourceArn': group.scheduleGroupArn } },
      }),
    });
    this.schedule = new scheduler.Schedule(this, 'Schedule', {
      // Stack-scoped: the default group is shared by every stack of the account.
      scheduleName: stackScopedName(this, SWEEP_SCHEDULE.name),
      description: 'Holdback: re-drive overdue and retryable releases',
      schedule: scheduler.ScheduleExpression.expression(SWEEP_SCHEDULE.expression),
      timeWindow: scheduler.TimeWindow.off(),
      target: new LambdaInvoke(props.sweep, { role, retryAttempts: 0, maxEventAge: Duration.minutes(1) }),
    });
    const sweepLogicalId = stack.getLogicalId(props.sweep.node.defaultChild as CfnElement);
    Validations.of(role).acknowledge({
      id: `AwsSolutions-IAM5[Resource::<${sweepLogicalId}.Arn>:*]`,
      reason: "LambdaInvoke's grant covers the sweep function's versions and aliases (ARN:*); it is still that one function.",
    });
  }
}
