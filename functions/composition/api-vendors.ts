/**
 * The composition of the vendors at large (the apiVendors function): the vendor list, which may ask the gateway
 * whether each vendor is known there (credentials from Secrets Manager), and the policy CSV import, which stores
 * policy versions for new orders, as a PUT does, and its own record (the stored imports). It plans no schedule,
 * enqueues nothing and publishes nothing, so it loads neither Scheduler, SQS nor EventBridge.
 */
import type { AwsAdapters } from './compose';
import { secretsManager } from './services/secrets-manager';
import { gatewayReads } from './services/gateway';
import { workRepositories } from './services/work-repositories';

export const adapters: AwsAdapters = { secretsManager, gatewayReads, workRepositories };
