/** Bulk work and exports (contract 6.3): the jobs, POST /exports, and the local download of an export file. */
import { EXPORT_FILE_PATH } from '../../adapters/files/file-export-store';
import { CANCEL_BODY, cancelJob } from '../../application/jobs/cancel-job';
import { startExport } from '../../application/audit/export-job';
import { JOB_CURSOR_LIST, JOB_LIMIT, getJob, jobView, listJobs, requireJobId } from '../../application/job-views';
import { JOB_KINDS, JOB_STATES } from '../../application/ports';
import { json } from '../http';
import { ok, page, ref, responses } from '../schema/openapi-parts';
import { count, cursor, oneOf, parsed, requiredText, text } from '../schema/params';
import { defineRoute } from '../schema/route-schema';
import { EXPORT_BODY } from '../schema/export-body';
import { streamedResult } from '../streamed-body';
import type { ApiRoute } from './route';


/** A job's own id rule (job_<ms>_<10 chars>), read before the body. */
const JOB_ID = parsed('The jobId of an answer that started a job.', { type: 'string', pattern: '^job_[0-9]{13}_[0-9a-z]{10}$' }, (value = '') => {
  requireJobId(value);
  return value;
}, { example: 'job_1669975200000_k3v9x0q2m1' });

export const JOB_ROUTES: ApiRoute[] = [
  defineRoute({
    method: 'GET', path: '/jobs', summary: 'Jobs, newest first (contract 6.3)',
    query: {
      state: oneOf(JOB_STATES, 'One state.'), kind: oneOf(JOB_KINDS, 'One kind.'),
      limit: count(JOB_LIMIT.min, JOB_LIMIT.max, JOB_LIMIT.default, 'Page size.'), cursor: cursor(JOB_CURSOR_LIST),
    },
    strictQuery: true,
    responses: responses({ 200: ok('A page of jobs.', page('items', ref('Job'))) }, { 400: 'A parameter is wrong; the message names it.' }),
    handle: async ({ query }, deps) => json(200, await listJobs(await deps(), { state: query.state, kind: query.kind, limit: query.limit, after: query.cursor })),
  }),
  defineRoute({
    method: 'GET', path: '/jobs/{jobId}', summary: 'One job: its state and progress, and an export\'s link',
    params: { jobId: JOB_ID },
    responses: responses({ 200: ok('The job.', ref('Job')) }, { 400: 'Not a job id.', 404: 'No such job.' }),
    handle: async ({ params }, deps) => json(200, await getJob(await deps(), params.jobId)),
  }),
  defineRoute({
    method: 'POST', path: '/jobs/{jobId}/cancel', summary: 'Cancel a job that has not ended: its remaining steps are skipped',
    params: { jobId: JOB_ID },
    body: CANCEL_BODY,
    responses: responses({
      200: ok('The job, cancelled. Each release it walked is in a state of its own (every release is written whole, one at a time): those done are planned under the change, the others as they were; a hold or a policy applied stays in force from its own answer (the sender checks at claim time).', ref('Job')),
    }, { 400: 'Not a job id, or a bad body.', 404: 'No such job.', 409: 'The job has ended already (job_ended): nothing to cancel.' }),
    handle: async ({ params, body }, deps) => json(200, await cancelJob(await deps(), params.jobId, body)),
  }),
  defineRoute({
    method: 'POST', path: '/exports', summary: 'An export of any size as a file, written by a job (contract 6.3)',
    body: EXPORT_BODY,
    responses: responses({ 202: ok('The export job; GET /jobs/{jobId} until its result carries the link.', { type: 'object', required: ['job'], properties: { job: ref('Job') } }) }, { 400: 'A field or filter is wrong (filters.<name>); no job was started.' }),
    handle: async ({ body }, deps) => {
      const d = await deps();
      const job = await startExport(d, body);
      return json(202, { job: jobView(job, (await d.settings.get()).timezone) });
    },
  }),
  defineRoute({
    method: 'GET', path: `${EXPORT_FILE_PATH}/{file}`,
    summary: 'Locally: an export file, by the link of its job\'s result (on AWS the link is a pre-signed S3 URL instead)',
    params: { file: { ...text('The file name of the link.'), example: 'job_1669975200000_k3v9x0q2m1.csv' } },
    query: { token: requiredText('The unguessable token of the link.') },
    responses: responses({
      200: { description: 'The whole file.', content: { 'text/csv': { schema: { type: 'string' } }, 'application/x-ndjson': { schema: { type: 'string' } } } },
    }, { 404: 'No such file, or not this token.', 410: 'export_expired: the link expired; POST /exports again.' }),
    handle: async ({ params, query }, deps) => {
      const d = await deps();
      const file = params.file ?? '';
      if (!d.exports.open) {
        return json(404, { error: { code: 'not_found', message: 'export files are served by their pre-signed link here (the job\'s result.url), not by the API' } });
      }
      const found = await d.exports.open(file, query.token ?? '', new Date(d.clock.now().ms));
      if (found.kind === 'not_found') {
        return json(404, { error: { code: 'not_found', message: `no export ${file.slice(0, 60)} with this token; use the url of the export job's result (GET /jobs/{jobId})` } });
      }
      if (found.kind === 'expired') {
        return json(410, { error: { code: 'export_expired', message: `this export link expired at ${found.expiresAt}; POST /exports again for a new file and link` } });
      }
      return streamedResult(200, {
        'content-type': found.contentType,
        'content-disposition': `attachment; filename="${found.fileName}"`,
        'cache-control': 'no-store',
      }, found.chunks);
    },
  }),
];
