/**
 * Deploys that survive their own failures: what a failed first create leaves behind must not block the retry, and
 * what a destroy keeps is what the books need. Applied as an aspect over the whole stack, so a construct added later
 * follows the same rules.
 */
import { type IAspect, RemovalPolicy } from 'aws-cdk-lib';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as scheduler from 'aws-cdk-lib/aws-scheduler';
import type { IConstruct } from 'constructs';

/**
 * Function and access logs: 400 days (CloudWatch's 13 months), the retention table's order events row: a dispute or
 * chargeback can come up to a year later and its logs explain what Holdback did. Retained on destroy.
 */
export const LOG_RETENTION_DAYS = 400;

export class DeploySafety implements IAspect {
  visit(node: IConstruct): void {
    if (node instanceof scheduler.CfnScheduleGroup) {
      // Named after the stack: a group kept by a failed create or a destroy would make the next create fail on its
      // name. Deleting it deletes only pending schedules; the sweep re-drives their releases from the tables.
      node.applyRemovalPolicy(RemovalPolicy.DESTROY);
    } else if (node instanceof kms.CfnKey) {
      // Kept on delete and update (it signed the audit checkpoints), but removed when the create that made it fails.
      node.applyRemovalPolicy(RemovalPolicy.RETAIN_ON_UPDATE_OR_DELETE);
    } else if (node instanceof logs.CfnLogGroup) {
      node.retentionInDays = LOG_RETENTION_DAYS;
      node.applyRemovalPolicy(RemovalPolicy.RETAIN_ON_UPDATE_OR_DELETE);
    }
  }
}
