/**
 * The reads' composition (the apiReads function): DynamoDB and the stored work (approvals, previews). It changes
 * nothing and asks the gateway nothing (the vendor list, which may, is the api function's), so it loads no Scheduler,
 * SQS, EventBridge, S3, KMS or Secrets Manager client.
 */
import type { AwsAdapters } from './compose';
import { workRepositories } from './services/work-repositories';

export const adapters: AwsAdapters = { workRepositories };
