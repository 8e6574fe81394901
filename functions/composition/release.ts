/** The release function's composition: sends to the gateway (credentials from Secrets Manager), retries by schedule or queue, publishes the outcome. */
import type { AwsAdapters } from './compose';
import { scheduler } from './services/scheduler';
import { publisher } from './services/eventbridge';
import { queues } from './services/sqs';
import { secretsManager } from './services/secrets-manager';
import { gatewayReads, gatewaySends } from './services/gateway';

export const adapters: AwsAdapters = { scheduler, publisher, queues, secretsManager, gatewayReads, gatewaySends };
