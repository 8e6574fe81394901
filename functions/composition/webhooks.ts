/**
 * The gateway webhooks' composition: checks signatures and looks orders up (credentials from Secrets Manager), cancels
 * a settled release's schedule and publishes. It never enqueues a release (its role may not send to the release
 * queue: lib/holdback-stack.ts), so it loads no SQS client.
 */
import type { AwsAdapters } from './compose';
import { scheduler } from './services/scheduler';
import { publisher } from './services/eventbridge';
import { secretsManager } from './services/secrets-manager';
import { gatewayReads } from './services/gateway';

export const adapters: AwsAdapters = { scheduler, publisher, secretsManager, gatewayReads };
