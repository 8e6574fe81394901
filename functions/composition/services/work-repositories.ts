/** The stored work of the API and the jobs (previews, four-eyes approvals, policy imports, jobs); the sweep expires approvals. */
import { DynamoApprovalRepository } from '../../adapters/dynamodb/approval-repository';
import { DynamoJobRepository } from '../../adapters/dynamodb/job-repository';
import { DynamoPolicyImportRepository } from '../../adapters/dynamodb/policy-import-repository';
import { DynamoPreviewRepository } from '../../adapters/dynamodb/preview-repository';
import type { AwsAdapters } from '../compose';

export const workRepositories: NonNullable<AwsAdapters['workRepositories']> = (doc, table) => ({
  previews: new DynamoPreviewRepository(doc, table),
  approvals: new DynamoApprovalRepository(doc, table),
  policyImports: new DynamoPolicyImportRepository(doc, table),
  jobs: new DynamoJobRepository(doc, table),
});
