/**
 * EventBridge Scheduler: the release schedules (one-time, targeting the release queue). CreateSchedule and
 * DeleteSchedule go out without the SDK's Scheduler client (adapters/scheduler/scheduler-requests.ts), hooked as a
 * client would be.
 */
import { SchedulerRequests } from '../../adapters/scheduler/scheduler-requests';
import { EventBridgeReleaseScheduler } from '../../adapters/scheduler/eventbridge-release-scheduler';
import type { AwsAdapters } from '../compose';

export const scheduler: NonNullable<AwsAdapters['scheduler']> = (c) => new EventBridgeReleaseScheduler(c.metered('Scheduler', () => new SchedulerRequests(c.aws)), {
  releaseQueueArn: c.config.scheduler.releaseQueueArn,
  schedulerRoleArn: c.config.scheduler.schedulerRoleArn,
  groupName: c.config.scheduler.groupName,
  rolePropagationWaitMs: c.config.scheduler.rolePropagationWaitMs,
  ...(c.config.scheduler.deadLetterArn ? { deadLetterArn: c.config.scheduler.deadLetterArn } : {}),
});
