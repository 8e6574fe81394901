/** The gateway webhooks' composition: checks signatures and looks orders up (credentials from Secrets Manager), replans and publishes. */
import type { AwsAdapters } from './compose';
import { scheduler } from './services/scheduler';
import { publisher } from './services/eventbridge';
import { queues } from './services/sqs';
import { secretsManager } from './services/secrets-manager';
import { gatewayReads } from './services/gateway';

export const adapters: AwsAdapters = { scheduler, publisher, queues, secretsManager, gatewayReads };
