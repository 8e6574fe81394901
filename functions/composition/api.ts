/**
 * The changes' composition (the api function: settings, policies, holds, releases, four-eyes decisions; previews are
 * apiJobs', the vendor list and imports apiVendors'): schedules cancelled and planned again, due releases and job steps
 * enqueued, the gateway's order reads (credentials from Secrets Manager), and the stored work. It emits nothing (routing.ts EMITTED_EVENTS:
 * the gateway's webhook route, which republishes a payment, is the webhooks function's), so no EventBridge client; no
 * S3, no KMS: exports and the audit log are the apiAudit function's (definitions/api-routing.ts).
 */
import type { AwsAdapters } from './compose';
import { scheduler } from './services/scheduler';
import { queues } from './services/sqs';
import { secretsManager } from './services/secrets-manager';
import { gatewayReads } from './services/gateway';
import { workRepositories } from './services/work-repositories';

export const adapters: AwsAdapters = { scheduler, queues, secretsManager, gatewayReads, workRepositories };
