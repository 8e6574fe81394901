/**
 * The reads' composition (the apiReads function): DynamoDB, the stored work (approvals, previews) and the gateway's
 * vendor reads for `GET /vendors?checkGateway=true` (credentials from Secrets Manager). It changes nothing, so it loads
 * no Scheduler, SQS, EventBridge, S3 or KMS client.
 */
import type { AwsAdapters } from './compose';
import { secretsManager } from './services/secrets-manager';
import { gatewayReads } from './services/gateway';
import { workRepositories } from './services/work-repositories';

export const adapters: AwsAdapters = { secretsManager, gatewayReads, workRepositories };
