/**
 * The order-events function's composition: plans releases (schedules, the release queue); never calls the gateway,
 * keeps no jobs, previews or exports, and publishes nothing (routing.ts EMITTED_EVENTS: its role may put no event), so
 * it loads no EventBridge client.
 */
import type { AwsAdapters } from './compose';
import { scheduler } from './services/scheduler';
import { queues } from './services/sqs';

export const adapters: AwsAdapters = { scheduler, queues };
