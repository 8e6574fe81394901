/** EventBridge Scheduler: the release schedules (one-time, targeting the release queue). */
import { SchedulerClient } from '@aws-sdk/client-scheduler';
import { EventBridgeReleaseScheduler } from '../../adapters/scheduler/eventbridge-release-scheduler';
import type { AwsAdapters } from '../compose';

export const scheduler: NonNullable<AwsAdapters['scheduler']> = (c) => new EventBridgeReleaseScheduler(c.lazy('Scheduler', () => new SchedulerClient(c.aws)), {
  releaseQueueArn: c.config.scheduler.releaseQueueArn,
  schedulerRoleArn: c.config.scheduler.schedulerRoleArn,
  groupName: c.config.scheduler.groupName,
  rolePropagationWaitMs: c.config.scheduler.rolePropagationWaitMs,
  ...(c.config.scheduler.deadLetterArn ? { deadLetterArn: c.config.scheduler.deadLetterArn } : {}),
});
