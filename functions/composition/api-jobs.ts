/**
 * The composition of jobs and exports (the apiJobs function): an export's or a cancel's job steps enqueued (SQS) and
 * the stored jobs; the jobs function writes the export files and signs their links, so no S3 client here; locally the
 * export folder the API serves the files from.
 */
import type { AwsAdapters } from './compose';
import { queues } from './services/sqs';
import { workRepositories } from './services/work-repositories';
import { exportFolder } from './services/local-files';

export const adapters: AwsAdapters = { queues, workRepositories, exportFolder };
