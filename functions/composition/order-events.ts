/** The order-events function's composition: plans releases (schedules, the release queue) and publishes; never calls the gateway, keeps no jobs, previews or exports. */
import type { AwsAdapters } from './compose';
import { scheduler } from './services/scheduler';
import { publisher } from './services/eventbridge';
import { queues } from './services/sqs';

export const adapters: AwsAdapters = { scheduler, publisher, queues };
