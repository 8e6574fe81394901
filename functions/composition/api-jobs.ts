/**
 * The composition of the work that may run as a job (the apiJobs function: jobs, exports, previews): an export's, a
 * cancel's or a large preview's job steps enqueued (SQS), the stored jobs and previews; it plans no schedule and asks
 * no gateway (a preview reads the stored releases). The jobs function writes the export files and signs their links, so no S3 client here; locally the
 * export folder the API serves the files from.
 */
import type { AwsAdapters } from './compose';
import { queues } from './services/sqs';
import { workRepositories } from './services/work-repositories';
import { exportFolder } from './services/local-files';

export const adapters: AwsAdapters = { queues, workRepositories, exportFolder };
